// layoutctl: talks to layoutd. This first cut has what the systemd units need (`reload
// --wait`) and raw access (`call`, `status`); the full CLI follows in its own issue.
//
// Exit codes: 0 ok, 1 could not talk to the daemon or bad reply, 2 the daemon refused,
// 3 timeout, 64 usage.
import Glibc
import LayoutIPC
import LayoutProtocol

let usage = """
    usage: layoutctl [-s PATH] [--timeout SECONDS] COMMAND
      reload [--wait]       re-read the daemon's configuration (--wait: until it is done; the
                            reply always waits, so both wait)
      status                the daemon's counters
      call METHOD [JSON]    any method with JSON params; prints the result
      --print-socket-path   where layoutd is looked for
    """

func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

func exitUsage(_ message: String) -> Never {
    printError("layoutctl: \(message)\n\(usage)")
    exit(64)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var socketOption: String?
var timeout = 30.0
var command = [String]()
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    switch argument {
    case "-s", "--socket":
        index += 1
        guard index < arguments.count else { exitUsage("\(argument) needs a path") }
        socketOption = arguments[index]
    case "--timeout":
        index += 1
        guard index < arguments.count, let value = Double(arguments[index]), value > 0 else { exitUsage("--timeout needs seconds") }
        timeout = value
    case "-h", "--help":
        print(usage, terminator: "")
        exit(0)
    default: command.append(argument)
    }
    index += 1
}

var environment = [String: String]()
for name in ["LAYOUTD_SOCKET", "XDG_RUNTIME_DIR"] {
    if let value = getenv(name) { environment[name] = String(cString: value) }
}
let socketPath = SocketPath.resolve(option: socketOption, environment: environment)

let method: String
var params = JSONObject()
switch command.first {
case "--print-socket-path"?:
    print(socketPath.path)
    exit(0)
case "reload"?:
    guard command.dropFirst().allSatisfy({ $0 == "--wait" }) else { exitUsage("reload takes only --wait") }
    method = "daemon.reload"
case "status"?:
    guard command.count == 1 else { exitUsage("status takes no arguments") }
    method = "daemon.status"
case "call"?:
    guard command.count == 2 || command.count == 3 else { exitUsage("call METHOD [JSON]") }
    method = command[1]
    if command.count == 3 {
        guard case .object(let object)? = try? JSONParser.parse(Array(command[2].utf8)) else { exitUsage("JSON params must be an object") }
        params = object
    }
case nil: exitUsage("no command")
case let other?: exitUsage("unknown command '\(other)'")
}

let connection: LineConnection
do {
    connection = try LineConnection(path: socketPath.path)
} catch {
    printError("layoutctl: cannot connect to layoutd at \(socketPath.path): \(error)")
    exit(1)
}
connection.setTimeout(timeout)
var request = JSONWriter()
request.write(.object(["id": .number(1), "method": .string(method), "params": .object(params)]))
do {
    try connection.send(request.bytes + [0x0A])
    while true {
        guard let line = try connection.readLine() else {
            printError("layoutctl: the daemon closed the connection")
            exit(1)
        }
        guard case .object(let reply) = try? JSONParser.parse(line) else {
            printError("layoutctl: not a JSON reply")
            exit(1)
        }
        if reply["event"] != nil { continue }
        if let error = reply["error"] {
            printError("layoutctl: \(error["name"]?.stringValue ?? "Error"): \(error["message"]?.stringValue ?? "")")
            exit(2)
        }
        guard let result = reply["result"] else {
            printError("layoutctl: a reply without result or error")
            exit(1)
        }
        print(JSONWriter.string(result))
        exit(0)
    }
} catch {
    if error.code == EAGAIN || error.code == EWOULDBLOCK {
        printError("layoutctl: no reply within \(timeout) s")
        exit(3)
    }
    printError("layoutctl: \(error)")
    exit(1)
}
