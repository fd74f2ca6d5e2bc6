import Glibc
import LayoutIPC
import LayoutProtocol
import LayoutdClient
import Testing

/// The blocking client's own failures, each by its case (layoutctl turns them into its exit
/// statuses: transport 1, timeout 3); its calls and events run end to end in every layoutctl
/// test (system-tests/e2e/test_layoutctl.py).
@Suite("blocking connection")
struct BlockingConnectionTests {
    @Test("no daemon at the path: a transport error naming it")
    func nothingListening() {
        let path = "/tmp/layoutd-blocking-\(getpid())-absent.sock"
        do {
            _ = try BlockingConnection(path: path, timeout: 1)
            Issue.record("connected to nothing")
        } catch {
            guard case .transport(let message) = error else {
                Issue.record("wanted transport, got \(error)")
                return
            }
            #expect(message.contains(path), "\(message)")
        }
    }

    @Test("a daemon that never answers: a timeout, not a hang")
    func silentPeer() throws {
        let path = "/tmp/layoutd-blocking-\(getpid())-silent.sock"
        unlink(path)
        let listener = try UnixSocket.listen(at: path)
        defer {
            close(listener)
            unlink(path)
        }
        let client = try BlockingConnection(path: path, timeout: 0.2)
        #expect(client.path == path)
        do {
            _ = try client.call("daemon.sync")
            Issue.record("a reply from a peer that sends nothing")
        } catch {
            guard case .timeout(let seconds) = error else {
                Issue.record("wanted timeout, got \(error)")
                return
            }
            #expect(seconds == 0.2)
        }
    }
}
