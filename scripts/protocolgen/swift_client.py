"""Sources/LayoutdClient/Methods.swift: every method of the protocol as Swift types for the
Swift client (LayoutdClient): per method a namespace with its name, `Params` (what the
request sends, encoded in schema order and decodable from a request's params) and `Result`
(the client's own value types where they exist: Invalidation, Snapshot, Attributes; else a
struct generated from the result schema), and a typed call on `LayoutdConnection` (async) and
`BlockingConnection`.

Type mapping: JSON primitives to String, Int, Double, Bool; string enums to Swift enums in
params (closed: the daemon refuses other values) and to String in results (a result may gain
values within a version); arrays to arrays; maps to dictionaries; unions and anything
unmodelled to JSONValue; the shared definitions to the types that own them (LayoutGeometry's
Point, Size, Rect and EdgeInsets, LayoutProtocol's WireItem, WireSection, WireUpdate and
WireAnchor, the client's Attributes, Snapshot, Invalidation, Transition, ElementKey and
ElementKind); other objects to structs generated here."""
import collections
import os
import re
import sys

from . import types as t
from .model import ROOT, DescriptionError
from .text import GENERATED, camel, pascal, swift_string, wrap

OUTPUT = os.path.join(ROOT, "Sources", "LayoutdClient", "Methods.swift")
NAMESPACE = "LayoutdMethods"

KEYWORDS = {"protocol", "default", "in", "is", "as", "operator", "repeat", "self", "Self", "Type", "class", "struct", "enum",
            "func", "let", "var", "return", "switch", "case", "where", "while", "for", "if", "else", "guard", "import",
            "init", "internal", "private", "public", "static", "subscript", "throw", "throws", "true", "false", "nil", "super",
            "extension", "deinit", "do", "catch", "try", "break", "continue", "fallthrough", "defer", "associatedtype", "any", "some"}

# Definitions with a Swift type of their own: (type, decode(value, context), encode(expression)).
OWNED = {
    "point": ("Point", "try WireDecode.point({v}, {c})", ".point({e})"),
    "size": ("Size", "try WireDecode.size({v}, {c})", ".size({e})"),
    "extent": ("Size", "try WireDecode.size({v}, {c})", ".size({e})"),
    "viewportSize": ("Size", "try WireDecode.size({v}, {c})", ".size({e})"),
    "rect": ("Rect", "try WireDecode.rect({v}, {c})", ".rect({e})"),
    "insets": ("EdgeInsets", "try WireDecode.insets({v}, {c})", ".insets({e})"),
    "insetsInput": ("EdgeInsets", "try WireDecode.insets({v}, {c})", ".insets({e})"),
    "item": ("WireItem", "try WireDecode.wire({v}, {c}, WireItem.read)", "{e}.json"),
    "section": ("WireSection", "try WireDecode.wire({v}, {c}, WireSection.read)", "{e}.json"),
    "update": ("WireUpdate", "try WireDecode.wire({v}, {c}, WireUpdate.read)", "{e}.json"),
    "anchorPolicy": ("WireAnchor", "try WireDecode.anchor({v}, {c})", "{e}.json"),
    "attributes": ("Attributes", "try Attributes(WireDecode.present({v}, {c}), {c})", None),
    "snapshot": ("Snapshot", "try Snapshot(WireDecode.present({v}, {c}))", None),
    "invalidation": ("Invalidation", "try Invalidation(WireDecode.present({v}, {c}))", None),
    "transition": ("Transition", "try Transition(WireDecode.present({v}, {c}))", None),
    "elementKey": ("ElementKey", "try ElementKey(WireDecode.present({v}, {c}), {c})", "{e}.json"),
    "elementKeyInput": ("ElementKey", "try ElementKey(WireDecode.present({v}, {c}), {c})", "{e}.json"),
    "elementKind": ("ElementKind", "ElementKind(rawValue: try WireDecode.string({v}, {c}))", ".string({e}.rawValue)"),
    "parameterValues": ("JSONObject", "try WireDecode.object({v}, {c})", ".object({e})"),
    "itemID": ("String", "try WireDecode.string({v}, {c})", ".string({e})"),
    "sectionID": ("String", "try WireDecode.string({v}, {c})", ".string({e})"),
}
# Names a generated type must not take: they would hide the types above inside the namespace.
RESERVED = {"Point", "Size", "Rect", "EdgeInsets", "WireItem", "WireSection", "WireUpdate", "WireAnchor", "Attributes",
            "Snapshot", "Invalidation", "Transition", "ElementKey", "ElementKind", "JSONObject", "JSONValue", "String",
            "Int", "Double", "Bool", "Params", "Result", "Event"}


# A generated struct: its lines, its members and the names of the types declared inside it.
Declaration = collections.namedtuple("Declaration", "lines members nested")


def fill(template, v=None, c=None, e=None):
    """A decode or encode template with its value ({v}), context ({c}) or expression ({e})."""
    for key, value in (("{v}", v), ("{c}", c), ("{e}", e)):
        if value is not None:
            template = template.replace(key, value)
    return template


def ident(name):
    name = camel(name) if not name[:1].islower() or "." in name or "-" in name else name
    return "`%s`" % name if name in KEYWORDS else name


def plain(name):
    return name.strip("`")


def singular(name):
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name + "Entry"


class Generator:
    def __init__(self, protocol):
        self.protocol = protocol
        self.definitions = {}   # def name -> generated struct name (for defs without an owned type)
        self.definition_order = []
        self.lines = []

    # ---- types -------------------------------------------------------------------------

    def type_name(self, wanted, taken):
        name = wanted
        if name in RESERVED or name in taken:
            name = name + "Entry"
        while name in taken:
            name = name + "_"
        taken.add(name)
        return name

    def swift(self, node, role, nested, hint, taken):
        """(Swift type, decode template with {v} {c}, encode template with {e} or None) for
        `node`; `nested` collects type declarations for objects and enums met on the way."""
        if isinstance(node, t.Prim):
            return {
                "string": ("String", "try WireDecode.string({v}, {c})", ".string({e})"),
                "integer": ("Int", "try WireDecode.integer({v}, {c})", ".number(Double({e}))"),
                "number": ("Double", "try WireDecode.number({v}, {c})", ".number({e})"),
                "boolean": ("Bool", "try WireDecode.bool({v}, {c})", ".bool({e})"),
            }.get(node.kind, ("JSONValue", "WireDecode.any({v})", "{e}"))
        if isinstance(node, t.Enum) and role == "params" and all(isinstance(v, str) for v in node.values):
            name = self.type_name(pascal(hint), taken)
            cases = ["case %s" % ident(v) + ("" if plain(ident(v)) == v else " = %s" % swift_string(v)) for v in node.values]
            nested.append(["public enum %s: String, Sendable, Hashable, CaseIterable {" % name] + ["    " + c for c in cases] + ["}"])
            return (name, "try WireDecode.enumeration({v}, {c}, %s.self)" % name, ".string({e}.rawValue)")
        if isinstance(node, (t.Enum, t.Const)):
            values = node.values if isinstance(node, t.Enum) else [node.value]
            if all(isinstance(v, str) for v in values):
                return ("String", "try WireDecode.string({v}, {c})", ".string({e})")
            return ("JSONValue", "WireDecode.any({v})", "{e}")
        if isinstance(node, t.Array):
            item, decode, encode = self.swift(node.item, role, nested, singular(hint), taken)
            return ("[%s]" % item, "try WireDecode.array({v}, {c}) { value, context throws(DecodingFailure) in %s }" % fill(decode, v="value", c="context"),
                    ".array({e}.map { element in %s })" % fill(encode, e="element") if encode else None)
        if isinstance(node, t.Map):
            value, decode, encode = self.swift(node.value, role, nested, singular(hint), taken)
            if value == "JSONValue":
                return ("JSONObject", "try WireDecode.object({v}, {c})", ".object({e})")
            return ("[String: %s]" % value, "try WireDecode.map({v}, {c}) { value, context throws(DecodingFailure) in %s }" % fill(decode, v="value", c="context"),
                    ".object(JSONObject({e}.sorted { $0.key < $1.key }.map { ($0.key, %s) }))" % fill(encode, e="$0.value") if encode else None)
        if isinstance(node, t.Ref):
            if node.name in OWNED:
                return OWNED[node.name]
            definition = t.definition(self.protocol, node.name)
            if isinstance(definition, (t.Obj, t.Extended)):
                name = self.definition_struct(node.name, definition, role)
                return (NAMESPACE + "." + name, "try %s.%s(WireDecode.present({v}, {c}), {c})" % (NAMESPACE, name),
                        ".object({e}.json)" if role == "params" else None)
            return self.swift(definition, role, nested, hint, taken)
        if isinstance(node, t.Extended):
            name = self.type_name(pascal(hint), taken)
            nested.append(self.struct(name, self.flatten(node), role).lines)
            return (name, "try %s(WireDecode.present({v}, {c}), {c})" % name, ".object({e}.json)" if role == "params" else None)
        if isinstance(node, t.Obj):
            name = self.type_name(pascal(hint), taken)
            nested.append(self.struct(name, node.fields, role).lines)
            return (name, "try %s(WireDecode.present({v}, {c}), {c})" % name, ".object({e}.json)" if role == "params" else None)
        return ("JSONValue", "WireDecode.any({v})", "{e}")

    def flatten(self, node):
        fields = []
        base = t.definition(self.protocol, node.base.name)
        if isinstance(base, t.Obj):
            fields += [t.Field(f.name, f.type, f.required or f.name in node.base.required, f.description) for f in base.fields]
        names = {f.name for f in fields}
        fields += [f for f in node.extra.fields if f.name not in names]
        return fields

    def definition_struct(self, name, definition, role):
        if name not in self.definitions:
            struct_name = pascal(name)
            if struct_name in RESERVED:
                struct_name += "Entry"
            self.definitions[name] = struct_name
            fields = self.flatten(definition) if isinstance(definition, t.Extended) else definition.fields
            self.definition_order.append(self.struct(struct_name, fields, role, description=t.description_of(self.protocol.defs[name])).lines)
        return self.definitions[name]

    # ---- declarations ------------------------------------------------------------------

    def struct(self, name, fields, role, description=""):
        """A struct for an object: fields, a memberwise init, a decoder from the object and,
        for params, an encoder in field order. Returns its lines, its members (field, Swift
        type, decode, encode, optional) and the names of the types nested in it."""
        nested, taken, members = [], set(RESERVED) - {"Params", "Result"}, []
        for field in fields:
            swift_type, decode, encode = self.swift(field.type, role, nested, field.name, taken)
            optional = not field.required or field.type.nullable
            members.append((field, swift_type, decode, encode, optional))
        out = []
        for line in wrap(description, 96, "/// "):
            out.append(line)
        out.append("public struct %s: %s {" % (name, "LayoutdParams" if name == "Params" else "Sendable"))
        for declaration in nested:
            out += ["    " + line for line in declaration]
        for field, swift_type, _, _, optional in members:
            for line in wrap(field.description, 92, "    /// "):
                out.append(line)
            out.append("    public var %s: %s%s" % (ident(field.name), swift_type, "?" if optional else ""))
        if role == "result":
            out.append("    /// The object as the daemon sent it (fields newer than this client included).")
            out.append("    public var json: JSONObject")
        # Memberwise init: required first, optional ones defaulting to nil.
        arguments = []
        for field, swift_type, _, _, optional in sorted(members, key=lambda m: m[4]):
            arguments.append("%s: %s%s" % (field.name, swift_type, "? = nil" if optional else ""))
        if role == "params":
            out.append("")
            out.append("    public init(%s) {" % ", ".join(arguments))
            for field, _, _, _, _ in members:
                out.append("        self.%s = %s" % (plain(ident(field.name)), ident(field.name)))
            out.append("    }")
        out.append("")
        out.append("    /// Reads the object (`context` names it in a failure).")
        out.append("    public init(_ value: JSONValue, _ context: String) throws(DecodingFailure) {")
        out.append("        let object = try WireDecode.object(value, context)")
        if role == "params":
            known = ", ".join(swift_string(f.name) for f, *_ in members)
            out.append("        try WireDecode.onlyKnown(object, [%s], context)" % known)
        for field, swift_type, decode, _, optional in members:
            value = "object[%s]" % swift_string(field.name)
            context = '"\\(context).%s"' % field.name
            if optional:
                out.append("        %s = try WireDecode.optional(%s) { value throws(DecodingFailure) in %s }" % (
                    "self." + plain(ident(field.name)), value, fill(decode, v="value", c=context)))
            else:
                out.append("        %s = %s" % ("self." + plain(ident(field.name)), fill(decode, v=value, c=context)))
        if role == "result":
            out.append("        json = object")
        out.append("    }")
        if role == "params":
            out.append("")
            out.append("    /// The object as the request sends it: fields in the schema's order, absent ones left out.")
            out.append("    public var json: JSONObject {")
            out.append("        %s object = JSONObject()" % ("var" if members else "let"))
            for field, _, _, encode, optional in members:
                target = "object[%s]" % swift_string(field.name)
                name = ident(field.name)
                if encode is None:
                    raise ValueError("%s.%s cannot be encoded" % (name, field.name))
                if optional:
                    out.append("        if let value = %s { %s = %s }" % (name, target, fill(encode, e="value")))
                else:
                    out.append("        %s = %s" % (target, fill(encode, e=name)))
            out.append("        return object")
            out.append("    }")
        out.append("}")
        nested_names = [declaration[0].split()[2].rstrip(":") for declaration in nested]
        return Declaration(out, members, nested_names)

    def method(self, method):
        namespace = pascal(method.name)
        out = []
        for line in wrap("`%s`: %s (protocol/%s)." % (method.name, method.summary, method.doc), 96, "/// "):
            out.append(line)
        out.append("public enum %s: LayoutdMethod {" % namespace)
        out.append("    public static let name = %s" % swift_string(method.name))
        out.append("    public static let mutates = %s" % ("true" if method.mutates else "false"))
        out.append("")
        params = t.convert(method.params, self.protocol, method.name)
        declared = self.struct("Params", params.fields, "params")
        out += ["    " + line for line in declared.lines]
        params = (declared.members, declared.nested)
        out.append("")
        result = t.convert(method.result, self.protocol, method.name)
        if isinstance(result, t.Extended) and result.base.name in OWNED:
            result = result.base
        if isinstance(result, t.Ref) and result.name in OWNED:
            swift_type, decode, _ = OWNED[result.name]
            out.append("    public typealias Result = %s" % swift_type)
            out.append("")
            out.append("    public static func result(_ value: JSONValue) throws(DecodingFailure) -> Result {")
            out.append("        %s" % fill(decode, v="value", c=swift_string("result")))
            out.append("    }")
        else:
            fields = self.flatten(result) if isinstance(result, t.Extended) else (
                t.definition(self.protocol, result.name).fields if isinstance(result, t.Ref) else result.fields)
            out += ["    " + line for line in self.struct("Result", fields, "result").lines]
            out.append("")
            out.append("    public static func result(_ value: JSONValue) throws(DecodingFailure) -> Result { try Result(value, %s) }" % swift_string("result"))
        out.append("}")
        return out, namespace, params

    def call(self, method, namespace, params, asynchronous):
        members, nested = params
        arguments, passing = [], []
        for field, swift_type, _, _, optional in sorted(members, key=lambda m: m[4]):
            for name in nested:
                swift_type = re.sub(r"\b%s\b" % re.escape(name), "%s.%s.Params.%s" % (NAMESPACE, namespace, name), swift_type)
            arguments.append("%s: %s%s" % (field.name, swift_type, "? = nil" if optional else ""))
            passing.append("%s: %s" % (field.name, ident(field.name)))
        # Every call may have a deadline of its own (seconds; the connection's when nil).
        if any(field.name == "timeout" for field, _, _, _, _ in members):
            raise DescriptionError("%s: a param named timeout would hide the call's deadline in the Swift client" % method.name)
        arguments.append("timeout: Double? = nil")
        name = camel(method.name)
        out = []
        for line in wrap("`%s`: %s (protocol/%s). `timeout`: this call's deadline in seconds (the connection's when nil)." % (
                method.name, method.summary, method.doc), 92, "    /// "):
            out.append(line)
        out.append("    public func %s(%s) %sthrows(LayoutdError) -> %s.%s.Result {" % (
            name, ", ".join(arguments), "async " if asynchronous else "", NAMESPACE, namespace))
        out.append("        try %scall(%s.%s.self, .init(%s), timeout: timeout)" % ("await " if asynchronous else "", NAMESPACE, namespace, ", ".join(passing)))
        out.append("    }")
        return out

    def generate(self):
        methods = []
        for method in self.protocol.methods:
            declaration, namespace, params = self.method(method)
            methods.append((method, declaration, namespace, params))
        out = ["// " + GENERATED, "import LayoutGeometry", "import LayoutProtocol", ""]
        out += [
            "/// Every method of the protocol as Swift types: per method its name, `Params` and",
            "/// `Result`. `LayoutdConnection` and `BlockingConnection` call them by type",
            "/// (`call(LayoutdMethods.ViewScroll.self, .init(view: \"photos\", offset: point))`) or by name",
            "/// (`viewScroll(view: \"photos\", offset: point)`).",
            "public enum %s {" % NAMESPACE,
            "    /// Every method, in the description's order.",
            "    public static var all: [any LayoutdMethod.Type] {",
            "        [",
        ]
        for _, _, namespace, _ in methods:
            out.append("            %s.self," % namespace)
        out.append("        ]")
        out.append("    }")
        for _, declaration, _, _ in methods:
            out.append("")
            out += ["    " + line for line in declaration]
        for declaration in self.definition_order:
            out.append("")
            out += ["    " + line for line in declaration]
        out.append("}")
        for connection, asynchronous in (("LayoutdConnection", True), ("BlockingConnection", False)):
            out.append("")
            out.append("extension %s {" % connection)
            first = True
            for method, _, namespace, params in methods:
                if not first:
                    out.append("")
                first = False
                out += self.call(method, namespace, params, asynchronous)
            out.append("}")
        out.append("")
        return "\n".join(line.rstrip() for line in out)



# The Swift README's code, compiled by `swift build` (target layoutd-readme-example) and run by
# system-tests/e2e/test_clients.py: its one `run` block is main.swift, its `compile` blocks (whole files
# of declarations) are Blocks.swift, so a README that no longer compiles fails the build, and a
# README that differs from these files fails check-generated. `config` blocks (Package.swift
# fragments) are checked by test_clients.py. The README's signature list is written from the
# generated calls, so it cannot drift from them either.
README = os.path.join(ROOT, "clients", "swift", "README.md")
EXAMPLE = os.path.join(ROOT, "clients", "swift", "examples", "readme")
SIGNATURES = ("<!-- signatures: begin -->", "<!-- signatures: end -->")
SIGNED = ("viewSelect", "viewConfigure")
README_KINDS = ("run", "compile", "config")


def signature_lines(methods_text):
    """The README's bullet for each method of SIGNED, from the generated async call."""
    lines = []
    for name in SIGNED:
        found = re.search(r"^    public func (%s\(.*\) async throws\(LayoutdError\) -> (\w+)\.(\w+)\.Result) \{$" % name, methods_text, re.M)
        if not found:
            raise DescriptionError("%s: no async call %s in Methods.swift" % (README, name))
        declaration, namespace, method = found.groups()
        result = re.search(r"public enum %s: LayoutdMethod \{.*?public typealias Result = (\w+)" % method, methods_text, re.S)
        lines.append("- `func %s`%s; on `BlockingConnection` the same without `async`." % (
            declaration, " (`Result` is `%s`)" % result.group(1) if result else ""))
    return lines


def with_signatures(text, methods_text):
    begin, end = SIGNATURES
    if text.count(begin) != 1 or text.count(end) != 1:
        raise DescriptionError("%s needs one %s ... %s section" % (README, begin, end))
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    return head + begin + "\n" + "\n".join(signature_lines(methods_text)) + "\n" + end + tail


def readme_outputs(methods_text):
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import readme_blocks  # scripts/readme_blocks.py: every block annotated with how it is tested

    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    try:
        blocks = readme_blocks.blocks(README)
    except readme_blocks.ReadmeError as error:
        raise DescriptionError(str(error))
    for block in blocks:
        if block["kind"] not in README_KINDS:
            raise DescriptionError("%s:%d: a `%s` block; the Swift README's checks handle %s" % (
                README, block["line"], block["kind"], ", ".join(README_KINDS)))
        if block["lang"] != "swift":
            raise DescriptionError("%s:%d: a ```%s block; the Swift README's blocks are swift" % (README, block["line"], block["lang"]))
    runs = [block for block in blocks if block["kind"] == "run"]
    if len(runs) != 1:
        raise DescriptionError("%s: %d `run` blocks; the example target holds exactly one" % (README, len(runs)))
    header = "// Generated by scripts/generate-protocol.py from clients/swift/README.md's `%s` block%s; do not edit.\n"
    compiled = [block["code"] for block in blocks if block["kind"] == "compile"]
    return {
        README: with_signatures(text, methods_text),
        os.path.join(EXAMPLE, "main.swift"): header % ("run", "") + "// Run twice against a real daemon by system-tests/e2e/test_clients.py.\n" + runs[0]["code"],
        os.path.join(EXAMPLE, "Blocks.swift"): header % ("compile", "s") + "// Compiled only.\n"
        + "\n".join(compiled) if compiled else header % ("compile", "s") + "// (none)\n",
    }


def outputs(protocol):
    methods_text = Generator(protocol).generate()
    files = {OUTPUT: methods_text}
    files.update(readme_outputs(methods_text))
    return files
