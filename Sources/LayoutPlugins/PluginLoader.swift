import CLayoutPlugin
import Glibc
import LayoutEngine
import LayoutGeometry
import StrategyCodec
import Synchronization

/// Loads strategy plugins from directories into a registry: at start and again on every
/// reload. A plugin is loaded once and stays loaded for the life of the process (views may be
/// using its strategies, so it is never unloaded); a reload adds new files, retries refused
/// ones, and warns about loaded ones that changed on disk.
///
/// Every refusal (a file or directory others may write to or that another user owns, not a
/// shared object, no entry point, another ABI version, a bad descriptor, a name already
/// registered, a failed check) is logged and recorded in the registry for `strategy.list`.
/// The ownership and mode checks (`PluginTrust`) run before `dlopen`; the rest after it, so a
/// trusted plugin whose constructor or entry point crashes or hangs does stop the daemon.
public final class PluginLoader: Sendable {
    /// How much a line matters: `debug` for what is normal but may help someone looking
    /// (the default directory absent, as it is for a binary run from the build tree).
    public enum Severity: Sendable { case debug, info, warning }

    /// What one scan did: the files it loaded and the ones it refused.
    public struct Report: Sendable {
        public var loaded: [(name: String, path: String)] = []
        public var refused: [StrategyRefusal] = []
    }

    private struct Library {
        var path: String
        var identity: FileIdentity
        var strategies: [PluginStrategyType]
        var warnedAboutChange = false
    }

    private struct State {
        var libraries: [Library] = []
    }

    private let state = Mutex(State())
    private let log: @Sendable (Severity, String) -> Void

    public init(log: @escaping @Sendable (Severity, String) -> Void) {
        self.log = log
    }

    /// Loads what is new in `directories`, then in `defaultDirectory` (in order; files by
    /// name) and returns `base` plus every plugin strategy loaded so far, with this scan's
    /// refusals. The default directory gets `PluginTrust.Policy.strict`: when any directory
    /// above it may be written by others, it is skipped whole.
    public func scan(
        _ directories: [String], defaultDirectory: String? = nil, base: StrategyRegistry = .builtIn
    ) -> (registry: StrategyRegistry, report: Report) {
        state.withLock { state in
            var registry = base
            for library in state.libraries {
                for strategy in library.strategies { try? register(strategy, into: &registry) }
            }
            var report = Report()
            let policies = directories.map { ($0, PluginTrust.Policy.configured) } + (defaultDirectory.map { [($0, .strict)] } ?? [])
            for (directory, policy) in policies {
                let trusted: String
                switch PluginTrust.checkDirectory(directory, policy: policy) {
                case .success(let resolved): trusted = resolved
                case .failure(.missing):
                    // The default directory is often absent (a build tree's binary, an install
                    // without plugins): nothing is wrong. A named one is what the user asked
                    // for, so its absence is most likely a typo.
                    if policy == .strict {
                        log(.debug, "no default plugin directory at \(directory); no plugins from it")
                    } else {
                        log(.warning, "plugin directory \(directory) does not exist; no plugins from it")
                    }
                    continue
                case .failure(let problem):
                    if case .untrusted = problem, policy == .strict {
                        log(.warning, "skipped the default plugin directory \(directory): \(problem.message); no plugins from it")
                    } else {
                        log(.warning, "refused plugin directory \(directory): \(problem.message)")
                    }
                    // Listing names runs no code: each file is refused where people look.
                    for (path, _) in Self.candidates(in: directory, listing: directory, log: log) {
                        let refusal = StrategyRefusal(name: Self.stem(of: path), path: path, reason: "its directory is not trusted: \(problem.message)")
                        registry.recordRefusal(refusal)
                        report.refused.append(refusal)
                        log(.warning, "refused plugin \(path) ('\(refusal.name)'): \(refusal.reason)")
                    }
                    continue
                }
                for (path, file) in Self.candidates(in: directory, listing: trusted, log: log) {
                    if let index = state.libraries.firstIndex(where: { $0.path == path }) {
                        if !state.libraries[index].warnedAboutChange, FileIdentity(path: path) != state.libraries[index].identity {
                            state.libraries[index].warnedAboutChange = true
                            log(.warning, "plugin \(path) changed on disk since it was loaded; the loaded version stays until layoutd restarts")
                        }
                        continue
                    }
                    switch load(path, opening: file, in: trusted, policy: policy, registry: registry) {
                    case .success(let library):
                        for strategy in library.strategies {
                            try? register(strategy, into: &registry)
                            report.loaded.append((strategy.descriptor.name, path))
                            log(.info, "loaded strategy '\(strategy.descriptor.name)' from plugin \(path)")
                        }
                        state.libraries.append(library)
                    case .failure(let refusal):
                        registry.recordRefusal(refusal)
                        report.refused.append(refusal)
                        log(.warning, "refused plugin \(path) ('\(refusal.name)'): \(refusal.reason)")
                    }
                }
            }
            return (registry, report)
        }
    }

    private func register(_ strategy: PluginStrategyType, into registry: inout StrategyRegistry) throws(LayoutError) {
        try registry.register(descriptor: strategy.descriptor, origin: .plugin(path: strategy.path)) { (parameters) throws(LayoutError) in
            try strategy.make(parameters)
        }
    }

    /// The shared objects in `directory`, by name, read from `listing` (its real path); hidden
    /// files are skipped. Each comes as the path people see and the path to open.
    static func candidates(in directory: String, listing: String, log: @Sendable (Severity, String) -> Void) -> [(path: String, file: String)] {
        guard let handle = opendir(listing) else {
            if errno == ENOENT {
                log(.info, "plugin directory \(directory) does not exist; no plugins from it")
            } else {
                log(.warning, "cannot read plugin directory \(directory): \(String(cString: strerror(errno)))")
            }
            return []
        }
        defer { closedir(handle) }
        var names = [String]()
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix("."), name.hasSuffix(".so") { names.append(name) }
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let real = listing.hasSuffix("/") ? listing : listing + "/"
        return names.sorted().map { (base + $0, real + $0) }.filter { _, file in
            var info = stat()
            return stat(file, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }
    }

    // MARK: Loading one file

    /// Loads `path` (as people see it) from `file`, its name in the trusted directory
    /// `directory`, once `PluginTrust` has passed the file.
    private func load(
        _ path: String, opening file: String, in directory: String, policy: PluginTrust.Policy, registry: StrategyRegistry
    ) -> Result<Library, StrategyRefusal> {
        let stem = Self.stem(of: path)
        func refuse(_ reason: String, name: String = stem) -> Result<Library, StrategyRefusal> {
            .failure(StrategyRefusal(name: name, path: path, reason: reason))
        }
        let opened: (descriptor: Int32, path: String)
        switch PluginTrust.open(file, in: directory, policy: policy) {
        case .success(let file): opened = file
        case .failure(let reason): return refuse(reason.message)
        }
        defer { close(opened.descriptor) }
        let identity = FileIdentity(descriptor: opened.descriptor)
        guard let handle = dlopen(opened.path, RTLD_NOW | RTLD_LOCAL) else {
            return refuse("cannot be loaded: \(dlerror().map { String(cString: $0) } ?? "unknown error")")
        }
        var keep = false
        defer { if !keep { dlclose(handle) } }
        // Only root or layoutd's user could have swapped it (PluginTrust.open says why).
        guard FileIdentity(path: opened.path) == identity else { return refuse("changed while it was being loaded") }
        guard let symbol = dlsym(handle, LAYOUTD_PLUGIN_ENTRY_SYMBOL) else {
            return refuse("has no \(LAYOUTD_PLUGIN_ENTRY_SYMBOL) function: not a layoutd plugin (see layoutd/plugin.h)")
        }
        let entry = unsafeBitCast(symbol, to: layoutd_plugin_entry_fn.self)
        guard let plugin = entry() else { return refuse("\(LAYOUTD_PLUGIN_ENTRY_SYMBOL) returned NULL") }
        // The version is the first field of every version of the table; nothing else is read
        // before it matches.
        let version = UnsafeRawPointer(plugin).load(as: UInt32.self)
        guard version == LAYOUTD_PLUGIN_ABI_VERSION else {
            return refuse("was built for plugin ABI version \(version); this layoutd speaks version \(LAYOUTD_PLUGIN_ABI_VERSION)")
        }
        let table = plugin.pointee
        guard table.strategy_count > 0, table.strategy_count <= 64, let strategies = table.strategies else {
            return refuse("declares \(table.strategy_count) strategies (1 to 64 allowed)")
        }
        var types = [PluginStrategyType]()
        var names = Set<String>()
        for index in 0..<table.strategy_count {
            let strategy = strategies[index]
            let type: PluginStrategyType
            switch Self.describe(strategy, path: path, log: log) {
            case .success(let described): type = described
            case .failure(let reason): return refuse("strategy \(index): \(reason.message)")
            }
            let name = type.descriptor.name
            if let origin = registry.origin(of: name) {
                return refuse("its strategy name '\(name)' is already registered (\(origin))", name: name)
            }
            guard names.insert(name).inserted else { return refuse("declares the strategy '\(name)' twice", name: name) }
            if let problem = ProbeCheck.run(type) {
                return refuse("failed layoutd's check: \(problem)", name: name)
            }
            types.append(type)
        }
        if let check = table.self_check {
            var error = [CChar](repeating: 0, count: Int(LAYOUTD_PLUGIN_ERROR_CAPACITY))
            if check(plugin, &error) != 0 {
                let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return refuse("failed its own check: \(message.isEmpty ? "no reason given" : message)", name: types.first?.descriptor.name ?? stem)
            }
        }
        keep = true
        return .success(Library(path: path, identity: identity, strategies: types))
    }

    /// Reads one strategy's table: its descriptor, its effect names and its required functions.
    private static func describe(
        _ strategy: layoutd_strategy, path: String, log: @escaping @Sendable (Severity, String) -> Void
    ) -> Result<PluginStrategyType, PluginRefusalReason> {
        guard let json = strategy.descriptor_json else { return .failure("descriptor_json is NULL") }
        let descriptor: StrategyDescriptor
        do {
            descriptor = try StrategyJSON.descriptor(from: String(cString: json))
        } catch {
            return .failure(PluginRefusalReason(error.message))
        }
        guard strategy.create != nil, strategy.destroy != nil, strategy.layout != nil else {
            return .failure(PluginRefusalReason("'\(descriptor.name)' lacks create, destroy or layout"))
        }
        guard strategy.effect_count <= 64, strategy.effect_count == 0 || strategy.effect_names != nil else {
            return .failure(PluginRefusalReason("'\(descriptor.name)' declares \(strategy.effect_count) effects without names (64 at most)"))
        }
        var effects = [String]()
        for index in 0..<strategy.effect_count {
            guard let name = strategy.effect_names[index].map({ String(cString: $0) }), !name.isEmpty, !effects.contains(name) else {
                return .failure(PluginRefusalReason("'\(descriptor.name)' effect \(index) has no name, or a repeated one"))
            }
            effects.append(name)
        }
        return .success(
            PluginStrategyType(table: strategy, descriptor: descriptor, effectNames: effects, path: path) { message in log(.warning, message) })
    }

    static func stem(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.hasSuffix(".so") ? String(file.dropLast(3)) : file
    }
}

struct PluginRefusalReason: Error, ExpressibleByStringLiteral {
    var message: String
    init(_ message: String) { self.message = message }
    init(stringLiteral value: String) { message = value }
}

/// Which file a path named when it was loaded: a replaced or rewritten file differs.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: Int64 = 0
    var modified: Int = 0
    var modifiedNanoseconds: Int = 0

    init(path: String) {
        var info = stat()
        if stat(path, &info) == 0 { self.init(info) } else { self.init() }
    }

    init(descriptor: Int32) {
        var info = stat()
        if fstat(descriptor, &info) == 0 { self.init(info) } else { self.init() }
    }

    private init() {}

    private init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim.tv_sec
        modifiedNanoseconds = info.st_mtim.tv_nsec
    }
}
