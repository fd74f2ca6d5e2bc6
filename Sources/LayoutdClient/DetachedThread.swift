#if canImport(Glibc)
import Glibc
#endif

/// A detached POSIX thread running one closure: the client's blocking read loop, and layoutctl's
/// web bridge. Not Foundation's `Thread`: this module is layoutctl's transport, and Foundation
/// would make every installed copy of layoutctl carry its runtime (about 50 MiB with ICU).
package enum DetachedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new detached thread; false when no thread could be made.
    @discardableResult
    package static func start(_ body: @escaping () -> Void) -> Bool {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
