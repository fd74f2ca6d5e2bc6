"""Sources/LayoutProtocol/ProtocolDescription.swift: the daemon's own copy of the description
(MethodCatalog's methods, parameters, errors and events; ErrorCatalog's table), which
daemon.describe serves, routing is checked against and the fuzzers draw from."""
import os

from . import summaries
from . import types as t
from .model import ROOT
from .text import GENERATED, swift_string as s

OUTPUT = os.path.join(ROOT, "Sources", "LayoutProtocol", "ProtocolDescription.swift")


def strings(values):
    return "[" + ", ".join(s(v) for v in values) + "]"


def generate(protocol):
    lines = [
        "// " + GENERATED,
        "",
        "extension MethodCatalog {",
        "    public static let protocolVersions = [%s]" % ", ".join(str(v) for v in protocol.versions),
        "",
        "    /// Every method of the protocol, in the description's order.",
        "    public static let methods: [Method] = [",
    ]
    for method in protocol.methods:
        lines.append("        Method(")
        lines.append("            name: %s, summary: %s, doc: %s," % (s(method.name), s(method.summary), s(method.doc)))
        if method.parameters:
            lines.append("            parameters: [")
            for parameter in method.parameters:
                lines.append("                Parameter(name: %s, type: %s, required: %s, summary: %s)," % (
                    s(parameter.name), s(summaries.display(t.convert(parameter.schema, protocol))),
                    "true" if parameter.required else "false", s(summaries.parameter_summary(parameter, protocol))))
            lines.append("            ],")
        else:
            lines.append("            parameters: [],")
        lines.append("            result: %s, mutates: %s," % (s(summaries.result_summary(method, protocol)), "true" if method.mutates else "false"))
        lines.append("            errors: %s," % strings(method.errors))
        lines.append("            events: %s)," % strings(method.events))
    lines += [
        "    ]",
        "",
        "    /// Every event name. Clients ignore events they do not know.",
        "    public static let events: [String] = %s" % strings(e.name for e in protocol.events),
        "",
        "    /// Errors any request may be answered with, whatever its method (before or while its",
        "    /// params are read, or when the daemon fails).",
        "    public static let requestErrors: [String] = %s" % strings(e.name for e in protocol.errors if e.scope in ("line", "request")),
        "}",
        "",
        "extension ErrorCatalog {",
        "    /// Every error name the protocol can send, with its code and meaning.",
        "    public static let entries: [(name: String, code: Int, meaning: String)] = [",
    ]
    for error in protocol.errors:
        lines.append("        (%s, %d, %s)," % (s(error.name), error.code, s(error.meaning)))
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def outputs(protocol):
    return {OUTPUT: generate(protocol)}
