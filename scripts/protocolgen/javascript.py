"""The JavaScript client's copy of the protocol (clients/js):

- src/protocol.js: the method, error and event tables and the protocol versions, as plain frozen
  data (no imports: the browser loads it as it is). client.js makes its method functions from
  the method table and errors.js its LayoutdError subclasses from the error table;
- src/error-classes.js: those subclasses as named exports (ViewNotFoundError, ...), which an ES
  module cannot make from a table at run time;
- protocol.d.ts: the TypeScript types: every shared object the methods and events use, each
  method's params and result, the map of methods, the Client's method groups, the event lines,
  and the errors' names, codes, data and classes. index.d.ts (by hand) re-exports it.

How a schema becomes a TypeScript type (types.convert's tree): string → string, integer and
number → number, boolean → boolean; enum and const → unions of literals; array → T[]; an object
of any keys → Record<string, T>; an object with properties → an interface (fields optional unless
required), with `[more: string]: unknown` when the schema is open (no additionalProperties:
false: the daemon may add fields within a version) and none when closed (what a client sends);
a closed object without properties → Record<string, never>; $ref → the definition's name
(PascalCase); allOf of a reference with `required` extras → `Name & {field: type}` (the
definition's own field types, now required); allOf of a reference and more properties →
`Name & {...}`; oneOf/anyOf → a union; null among them or in a type list → `| null`; anything
else → unknown."""
import os
import re

from . import types as t
from .model import ROOT, DescriptionError
from .text import GENERATED, js_string, pascal, wrap

CLIENT = os.path.join(ROOT, "clients", "js")
TABLES = os.path.join(CLIENT, "src", "protocol.js")
CLASSES = os.path.join(CLIENT, "src", "error-classes.js")
DECLARATIONS = os.path.join(CLIENT, "protocol.d.ts")
HAND_WRITTEN = os.path.join(CLIENT, "index.d.ts")

# Names a declaration must not shadow: TypeScript's own globals (lib es2022 and dom) that the
# protocol's definitions could be called. A definition so named gets "Object" appended.
GLOBALS = {"Array", "Boolean", "Date", "Element", "Error", "Event", "Function", "Map", "Node", "Number",
           "Object", "Promise", "Range", "Record", "Selection", "Set", "String", "Symbol", "Text", "Window"}
IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
WIDTH = 110


def outputs(protocol):
    return {
        TABLES: tables(protocol),
        CLASSES: error_classes(protocol),
        DECLARATIONS: Declarations(protocol).text(),
    }


# ---------------------------------------------------------------- names

def class_name(error):
    """The JavaScript class of an error name: ViewNotFound → ViewNotFoundError, ParseError as is
    (errors.js spells it the same way)."""
    return error.name if error.name.endswith("Error") else error.name + "Error"


def group_of(method):
    """(group, function): view.stage.commit → ("view.stage", "commit")."""
    group, _, function = method.name.rpartition(".")
    return group, function


def type_name(name):
    """The TypeScript name of a common.json definition."""
    candidate = pascal(name)
    return candidate + "Object" if candidate in GLOBALS else candidate


def property_name(name):
    return name if IDENTIFIER.match(name) else js_string(name)


def literal(value):
    return js_string(value) if isinstance(value, str) else ("null" if value is None else
                                                          "true" if value is True else
                                                          "false" if value is False else str(value))


def comment(text, indent):
    """A JSDoc comment for `text` (one line when it fits), or nothing."""
    text = " ".join(text.split()).replace("*/", "*\\/")
    if not text:
        return []
    if len(indent) + len(text) + 7 <= WIDTH:
        return ["%s/** %s */" % (indent, text)]
    return [indent + "/**"] + wrap(text, WIDTH, indent + " * ") + [indent + " */"]


# ---------------------------------------------------------------- src/protocol.js

def strings(values):
    return "[" + ", ".join(js_string(v) for v in values) + "]"


def tables(protocol):
    lines = [
        "// " + GENERATED,
        "// The protocol's tables for the client (no imports: browsers load it as it is). Types: ../protocol.d.ts.",
        "",
        "const method = (mutates, errors, events) => Object.freeze({ mutates, errors: Object.freeze(errors), events: Object.freeze(events) });",
        "const error = (code, scope, closesConnection) => Object.freeze({ code, scope, closesConnection });",
        "const event = (scope) => Object.freeze({ scope });",
        "",
        "/** The protocol versions this client speaks (what it offers in daemon.hello). */",
        "export const PROTOCOL_VERSIONS = Object.freeze([%s]);" % ", ".join(str(v) for v in protocol.versions),
        "",
        "/**",
        " * Every method, in the description's order: whether it mutates a view, the errors it may raise",
        " * besides the request-level ones (scope \"line\" and \"request\" in ERRORS), and the events it causes.",
        " * @type {Readonly<Record<string, Readonly<{mutates: boolean, errors: readonly string[], events: readonly string[]}>>>}",
        " */",
        "export const METHODS = Object.freeze({",
    ]
    for m in protocol.methods:
        lines.append("  %s: method(%s, %s, %s)," % (js_string(m.name), literal(m.mutates), strings(m.errors), strings(m.events)))
    lines += [
        "});",
        "",
        "/**",
        " * Every error name: its code, where it can arise (listed: from the methods that list it; line: any",
        " * line; request: any request; connection: a line no request asked for; reserved) and whether its",
        " * line closes the connection.",
        " * @type {Readonly<Record<string, Readonly<{code: number, scope: string, closesConnection: boolean}>>>}",
        " */",
        "export const ERRORS = Object.freeze({",
    ]
    for e in protocol.errors:
        lines.append("  %s: error(%d, %s, %s)," % (property_name(e.name), e.code, js_string(e.scope), literal(e.closes_connection)))
    lines += [
        "});",
        "",
        "/**",
        " * Every event and whom it is for (subscription: each subscription of the view; connection: the",
        " * connection). Clients ignore events they do not know.",
        " * @type {Readonly<Record<string, Readonly<{scope: string}>>>}",
        " */",
        "export const EVENTS = Object.freeze({",
    ]
    for e in protocol.events:
        lines.append("  %s: event(%s)," % (js_string(e.name), js_string(e.scope)))
    lines += ["});", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- src/error-classes.js

def error_classes(protocol):
    lines = [
        "// " + GENERATED,
        "// One LayoutdError subclass per error name, as named exports; errors.js makes them (errorClasses).",
        'import { errorClasses } from "./errors.js";',
        "",
    ]
    for e in protocol.errors:
        lines.append("export const %s = errorClasses.%s;" % (class_name(e), e.name))
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- protocol.d.ts

def hand_written_names():
    """What index.d.ts declares by hand: a generated name among them would be shadowed silently (a
    module's own export wins over `export *`), so it is refused instead."""
    if not os.path.exists(HAND_WRITTEN):
        return set()
    with open(HAND_WRITTEN, encoding="utf-8") as handle:
        text = handle.read()
    return set(re.findall(r"^export (?:declare )?(?:class|interface|type|function|const) (\w+)", text, re.M))


class Declarations:
    def __init__(self, protocol):
        self.protocol = protocol
        self.used = self._definitions_used()
        self.declared = {}
        self.reserved = hand_written_names()
        for name in ("ProtocolMethods", "MethodName", "ProtocolEvents", "EventName", "ProtocolEvent", "ErrorName",
                     "ConnectionErrorName", "ErrorCodes", "ErrorData", "ErrorClasses"):
            self.declare(name, "one of the tables' types")

    def _definitions_used(self):
        """The common.json definitions the methods, events and error data refer to, directly or
        through other definitions, in common.json's order."""
        found = set()

        def walk(value):
            if isinstance(value, dict):
                reference = value.get("$ref")
                if reference is not None:
                    name = self.protocol.def_name(reference)
                    if name not in found:
                        found.add(name)
                        walk(self.protocol.defs[name])
                for child in value.values():
                    walk(child)
            elif isinstance(value, list):
                for child in value:
                    walk(child)

        for method in self.protocol.methods:
            walk(method.params)
            walk(method.result)
        for event in self.protocol.events:
            walk(event.schema)
        for error in self.protocol.errors:
            walk(error.data)
        return [name for name in self.protocol.defs if name in found]

    def declare(self, name, what):
        if name in self.declared:
            raise DescriptionError("protocol.d.ts: %s would be both %s and %s" % (name, self.declared[name], what))
        if name in self.reserved:
            raise DescriptionError("protocol.d.ts: %s (%s) is also declared by hand in clients/js/index.d.ts" % (name, what))
        self.declared[name] = what
        return name

    # ---- types

    def type(self, node, indent=""):
        text = self._bare(node, indent)
        return text + " | null" if node.nullable else text

    def _bare(self, node, indent):
        if isinstance(node, t.Prim):
            return {"integer": "number"}.get(node.kind, node.kind)
        if isinstance(node, t.Enum):
            return " | ".join(literal(value) for value in node.values)
        if isinstance(node, t.Const):
            return literal(node.value)
        if isinstance(node, t.Array):
            item = self.type(node.item, indent)
            return item + "[]" if IDENTIFIER.match(item) else "Array<%s>" % item
        if isinstance(node, t.Map):
            return "Record<string, %s>" % self.type(node.value, indent)
        if isinstance(node, t.Obj):
            return self.object(node.fields, node.closed, indent)
        if isinstance(node, t.Ref):
            name = type_name(node.name)
            if not node.required:
                return name
            return "%s & %s" % (name, self.required_extras(node, indent))
        if isinstance(node, t.Extended):
            extra = self.object(node.extra.fields, True, indent)
            return "%s & %s" % (self.type(node.base, indent), extra)
        if isinstance(node, t.Union):
            return " | ".join(self.type(option, indent) for option in node.options)
        return "unknown"

    def required_extras(self, ref, indent):
        """`{field: type}` for the fields an allOf makes required beyond the definition's own."""
        definition = t.definition(self.protocol, ref.name)
        fields = {f.name: f for f in definition.fields} if isinstance(definition, t.Obj) else {}
        if not all(name in fields for name in ref.required):
            return "Required<Pick<%s, %s>>" % (type_name(ref.name), " | ".join(js_string(n) for n in ref.required))
        required = [t.Field(name, fields[name].type, True, fields[name].description) for name in ref.required]
        inline = ["%s: %s" % (property_name(f.name), self.type(f.type, indent)) for f in required]
        if any("\n" in part for part in inline) or len(indent) + sum(len(part) + 2 for part in inline) > WIDTH - 40:
            return self.object(required, True, indent)
        return "{ %s }" % "; ".join(inline)

    def object(self, fields, closed, indent):
        if not fields:
            return "Record<string, never>" if closed else "{ [more: string]: unknown }"
        inner = indent + "  "
        lines = ["{"]
        for field in fields:
            lines += comment(field.description, inner)
            lines.append("%s%s%s: %s;" % (inner, property_name(field.name), "" if field.required else "?",
                                          self.type(field.type, inner)))
        if not closed:
            lines.append(inner + "[more: string]: unknown;")
        lines.append(indent + "}")
        return "\n".join(lines)

    def named(self, name, node, doc, what):
        """`export interface` for an object with fields, else `export type`."""
        self.declare(name, what)
        lines = comment(doc, "")
        if isinstance(node, t.Obj) and node.fields and not node.nullable:
            lines.append("export interface %s %s" % (name, self.object(node.fields, node.closed, "")))
        else:
            lines.append("export type %s = %s;" % (name, self.type(node)))
        return lines

    # ---- sections

    def text(self):
        p = self.protocol
        lines = [
            "// " + GENERATED,
            "// layoutd-client's protocol types (index.d.ts re-exports them all): the shared objects of",
            "// protocol/schemas/common.json that methods and events use, every method's params and result,",
            "// the Client's method groups, the event lines, and every error's name, code, data and class.",
            "// Objects the daemon writes are open ([more: string]: unknown): fields may be added within a",
            "// protocol version. Objects a client sends are closed: the daemon refuses unknown fields.",
            'import { LayoutdError, type CallOptions } from "./index.js";',
            "",
            "// ---------------------------------------------------------------- shared objects (common.json)",
            "",
        ]
        for name in self.used:
            lines += self.named(type_name(name), t.definition(p, name), t.description_of(p.defs[name]),
                                "common.json#/$defs/" + name)
            lines.append("")
        lines += ["// ---------------------------------------------------------------- methods", ""]
        for method in p.methods:
            base = pascal(method.name)
            lines += self.named(base + "Params", t.convert(method.params, p, method.name),
                                "%s: %s (protocol/%s)" % (method.name, method.summary, method.doc), method.name + " params")
            lines.append("")
            lines += self.named(base + "Result", t.convert(method.result, p, method.name),
                                "%s: %s" % (method.name, t.description_of(method.result)), method.name + " result")
            lines.append("")
        lines += self.method_map() + self.groups() + self.events() + self.errors()
        return "\n".join(lines)

    def method_map(self):
        lines = [
            "/** Every method by name: its params and result. */",
            "export interface ProtocolMethods {",
        ]
        for method in self.protocol.methods:
            base = pascal(method.name)
            lines.append("  %s: { params: %sParams; result: %sResult };" % (js_string(method.name), base, base))
        lines += [
            "}",
            "export type MethodName = keyof ProtocolMethods;",
            "",
        ]
        return lines

    def groups(self):
        """An interface per group of method functions (client.view.stage is ViewStageMethods), and
        MethodGroups for the Client's top-level ones."""
        functions = {}
        for method in self.protocol.methods:
            group, function = group_of(method)
            parts = group.split(".")
            for depth in range(1, len(parts) + 1):
                functions.setdefault(".".join(parts[:depth]), [])
            functions[group].append((function, method))
        lines = []
        for group in functions:
            members = []
            for function, method in functions[group]:
                base = pascal(method.name)
                optional = "" if any(p.required for p in method.parameters) else "?"
                members += comment("%s: %s (protocol/%s)" % (method.name, method.summary, method.doc), "  ")
                members.append("  %s(params%s: %sParams, options?: CallOptions): Promise<%sResult>;"
                               % (property_name(function), optional, base, base))
            for child in functions:
                if child.rpartition(".")[0] == group:
                    last = child.rpartition(".")[2]
                    if any(function == last for function, _ in functions[group]):
                        raise DescriptionError("%s is both a method and a group of methods" % child)
                    members.append("  %s: %sMethods;" % (property_name(last), pascal(child)))
            lines.append("/** client.%s.* */" % group)
            lines.append("export interface %s {" % self.declare(pascal(group) + "Methods", "group " + group))
            lines += members
            lines += ["}", ""]
        lines.append("/** The Client's method functions, by group (client.daemon.hello, client.view.stage.commit, ...). */")
        lines.append("export interface %s {" % self.declare("MethodGroups", "the method groups"))
        for group in functions:
            if "." not in group:
                lines.append("  %s: %sMethods;" % (property_name(group), pascal(group)))
        lines += ["}", ""]
        return lines

    def events(self):
        p = self.protocol
        lines = ["// ---------------------------------------------------------------- events", ""]
        for event in p.events:
            lines += self.named(pascal(event.name) + "Event", t.convert(event.schema, p, event.name),
                                "%s (protocol/%s): %s" % (event.name, event.doc, t.description_of(event.schema)),
                                event.name + " event")
            lines.append("")
        lines += ["/** Every event line by event name. */", "export interface ProtocolEvents {"]
        for event in p.events:
            lines.append("  %s: %sEvent;" % (js_string(event.name), pascal(event.name)))
        lines += [
            "}",
            "export type EventName = keyof ProtocolEvents;",
            "export type ProtocolEvent = ProtocolEvents[EventName];",
            "",
        ]
        return lines

    def errors(self):
        p = self.protocol
        lines = [
            "// ---------------------------------------------------------------- errors",
            "",
            "/** Every error name of this protocol version (a newer daemon may send others). */",
            "export type ErrorName =",
        ]
        lines += ["  | %s" % js_string(e.name) for e in p.errors]
        lines[-1] += ";"
        lines += [
            "",
            "/** The names whose error line closes the connection. */",
            "export type ConnectionErrorName = %s;" % " | ".join(js_string(e.name) for e in p.errors if e.closes_connection),
            "",
        ]
        for e in p.errors:
            if e.data:
                lines += self.named(e.name + "Data", t.convert(e.data, p, e.name), "%s's data." % e.name, "error " + e.name)
                lines.append("")
        lines += ["/** Every error's code. */", "export interface ErrorCodes {"]
        lines += ["  %s: %d;" % (property_name(e.name), e.code) for e in p.errors]
        lines += ["}", "", "/** Every error's `data` (undefined: it has none). */", "export interface ErrorData {"]
        for e in p.errors:
            lines += comment(e.meaning, "  ")
            lines.append("  %s: %s;" % (property_name(e.name), e.name + "Data" if e.data else "undefined"))
        lines += ["}", ""]
        for e in p.errors:
            lines.append("export class %s extends LayoutdError<%s> {}" % (self.declare(class_name(e), "error " + e.name), js_string(e.name)))
        lines += ["", "/** Every error's class. */", "export interface ErrorClasses {"]
        lines += ["  %s: typeof %s;" % (property_name(e.name), class_name(e)) for e in p.errors]
        lines += ["}", ""]
        return lines
