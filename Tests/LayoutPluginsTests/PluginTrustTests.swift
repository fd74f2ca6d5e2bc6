import LayoutPlugins
import Testing

/// The ownership and mode rules `PluginTrust` applies before `dlopen`, as a table: layoutd
/// runs as uid 1000 here, so root (0) and 1000 are trusted owners.
@Suite("plugin trust")
struct PluginTrustTests {
    static let user: UInt32 = 1000

    @Test(
        "a plugin file: regular, owned by root or layoutd's user, writable by no one else",
        arguments: [
            (PluginTrust.Status(kind: .regular, mode: 0o644, owner: 0), nil),
            (PluginTrust.Status(kind: .regular, mode: 0o755, owner: 1000), nil),
            (PluginTrust.Status(kind: .regular, mode: 0o4755, owner: 0), nil),
            (PluginTrust.Status(kind: .regular, mode: 0o664, owner: 0), "/p/x.so is group-writable (mode 0664)"),
            (PluginTrust.Status(kind: .regular, mode: 0o646, owner: 0), "/p/x.so is world-writable (mode 0646)"),
            (PluginTrust.Status(kind: .regular, mode: 0o666, owner: 1000), "/p/x.so is world-writable (mode 0666)"),
            (PluginTrust.Status(kind: .regular, mode: 0o644, owner: 65534), "/p/x.so is owned by uid 65534, neither root nor layoutd's uid 1000"),
            (PluginTrust.Status(kind: .other, mode: 0o644, owner: 0), "/p/x.so is not a regular file"),
            (PluginTrust.Status(kind: .directory, mode: 0o755, owner: 0), "/p/x.so is not a regular file"),
        ] as [(PluginTrust.Status, String?)])
    func file(status: PluginTrust.Status, problem: String?) {
        #expect(PluginTrust.problem(withFile: status, at: "/p/x.so", trusting: Self.user) == problem)
    }

    @Test(
        "a directory: trusted owner, writable by no one else; a sticky ancestor only for a configured directory",
        arguments: [
            (PluginTrust.Status(kind: .directory, mode: 0o755, owner: 0), false, PluginTrust.Policy.configured, nil),
            (PluginTrust.Status(kind: .directory, mode: 0o700, owner: 1000), false, .strict, nil),
            (PluginTrust.Status(kind: .directory, mode: 0o775, owner: 0), false, .configured, "/d is group-writable (mode 0775)"),
            (PluginTrust.Status(kind: .directory, mode: 0o777, owner: 0), true, .configured, "/d is world-writable (mode 0777)"),
            // The plugin directory itself gets no sticky exception.
            (PluginTrust.Status(kind: .directory, mode: 0o1777, owner: 0), false, .configured, "/d is world-writable (mode 1777)"),
            // /tmp above a configured directory is fine, not above the default one.
            (PluginTrust.Status(kind: .directory, mode: 0o1777, owner: 0), true, .configured, nil),
            (PluginTrust.Status(kind: .directory, mode: 0o1777, owner: 0), true, .strict, "/d is world-writable (mode 1777)"),
            // A sticky directory of another user's: its owner could rename our entries.
            (PluginTrust.Status(kind: .directory, mode: 0o1777, owner: 65534), true, .configured, "/d is owned by uid 65534, neither root nor layoutd's uid 1000"),
            (PluginTrust.Status(kind: .directory, mode: 0o755, owner: 65534), true, .configured, "/d is owned by uid 65534, neither root nor layoutd's uid 1000"),
            (PluginTrust.Status(kind: .regular, mode: 0o755, owner: 0), false, .configured, "/d is not a directory"),
        ] as [(PluginTrust.Status, Bool, PluginTrust.Policy, String?)])
    func directory(status: PluginTrust.Status, isAncestor: Bool, policy: PluginTrust.Policy, problem: String?) {
        #expect(PluginTrust.problem(withDirectory: status, at: "/d", isAncestor: isAncestor, policy: policy, trusting: Self.user) == problem)
    }
}
