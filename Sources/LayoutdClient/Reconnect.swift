import LayoutProtocol

/// Brings a client's views back after the daemon restarts. Views live in the daemon's memory
/// and are lost with it (protocol/daemon.md), so the client keeps what it needs to make them
/// again: for each view, a function that gives the `view.create` parameters from the client's
/// own latest data. `restore` connects (waiting for the socket to accept), creates every view
/// (a view that already exists, say another client made it, is used as it is) and subscribes.
public final class Reconnector: Sendable {
    public let path: String?
    /// The `view.create` params for each view, from the caller's own data.
    public let recipes: @Sendable () -> [LayoutdMethods.ViewCreate.Params]

    public init(path: String? = nil, recipes: @escaping @Sendable () -> [LayoutdMethods.ViewCreate.Params]) {
        self.path = path
        self.recipes = recipes
    }

    /// Connects, waiting up to `timeout` seconds for the daemon to accept (polling every 20 ms).
    public func connect(timeout: Double = 10) async throws(LayoutdError) -> LayoutdConnection {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        while true {
            do {
                let left = clock.now.duration(to: deadline).components
                return try LayoutdConnection(path: path, connectTimeout: max(0, Double(left.seconds) + Double(left.attoseconds) / 1e18))
            } catch {
                guard clock.now < deadline else { throw error }
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
        }
    }

    /// A new connection with every view created again and followed.
    public func restore(timeout: Double = 10) async throws(LayoutdError) -> (LayoutdConnection, [FollowedView]) {
        let connection = try await connect(timeout: timeout)
        var followed = [FollowedView]()
        for recipe in recipes() {
            do {
                _ = try await connection.call(LayoutdMethods.ViewCreate.self, recipe)
            } catch let error where error.name == "ViewExists" {
                // Someone made it already: follow theirs.
            }
            followed.append(try await FollowedView(recipe.view, on: connection))
        }
        return (connection, followed)
    }
}
