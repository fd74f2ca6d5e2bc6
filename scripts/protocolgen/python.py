"""The Python client's copy of the protocol (clients/python/layoutd), four generated modules:

- `_names.py`: the protocol versions and every method and event name (tuples, and a constant
  per name for the hand-written parts of the package);
- `wire.py`: the protocol's JSON objects as `TypedDict`s: the results no dataclass reads, the
  shared objects of schemas/common.json they hold, and the objects parameters take;
- `_methods.py`: `SyncMethods` and `AsyncMethods`, one typed method per protocol method, which
  `Client` and `AsyncClient` inherit;
- `_errors.py`: one exception class per error name, `ERRORS`, `CONNECTION_ERRORS` (from
  `closesConnection`) and `LINE_ERRORS` (scope `line`).

Types come from the schemas through types.convert, never from a parameter's name. Where the
package has a dataclass for a shared definition, a parameter takes the dataclass or a mapping
(INPUT_MODELS, keyed by definition) and a result is read into it (RESULT_MODELS); every other
object is a TypedDict named after its definition, its `title`, or where it sits."""
import keyword
import os
import re

from . import summaries
from . import types as t
from .model import ROOT, DescriptionError
from .text import GENERATED, pascal, python_string, snake, upper_snake, wrap

PACKAGE = os.path.join(ROOT, "clients", "python", "layoutd")
WIDTH = 100

# Definitions of schemas/common.json a caller may pass as one of the package's dataclasses
# (or as a mapping, sent as it is).
INPUT_MODELS = {
    "point": "Point", "size": "Size", "extent": "Size", "viewportSize": "Size", "rect": "Rect", "insets": "Insets",
    "insetsInput": "Insets", "section": "Section", "item": "Item", "update": "Update", "elementKeyInput": "ElementKey",
}
# How a parameter of such a definition is written, when to_wire's default (a dataclass's
# to_json, a mapping as it is) does not fit: an ElementKey is a (kind, id) tuple.
CONVERTERS = {"elementKeyInput": "key_to_json"}
# Inline parameter objects whose `title` names a dataclass of the package.
TITLED_MODELS = ("Viewport",)
# Definitions whose values are any JSON that the daemon checks itself (a strategy parameter
# may also be given as a dataclass, such as Size for itemSize).
OPEN_DEFINITIONS = {"parameterValue": "Any"}
# Results read into the package's dataclasses: a definition ...
RESULT_MODELS = {"invalidation": "Invalidation", "snapshot": "Snapshot", "attributes": "Attributes"}
# ... or an inline object that has all of a dataclass's fields.
RESULT_SHAPES = {("elements", "selected", "next"): "QueryPage"}
# Methods the clients write by hand (typed there): view.subscribe returns a Subscription.
HAND_WRITTEN = ("view.subscribe",)

PRIMITIVES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def identifier(name):
    """A Python identifier for a parameter: snake case, a keyword with an underscore after it."""
    spelled = snake(name)
    return spelled + "_" if keyword.iskeyword(spelled) else spelled


def method_name(method):
    return snake(method.name)


def literal(values):
    return "Literal[%s]" % ", ".join(python_string(v) if isinstance(v, str) else repr(v) for v in values)


def docstring(paragraphs, indent):
    """A docstring of `paragraphs` (lists of lines, or strings to wrap) at `indent`."""
    lines = []
    for paragraph in paragraphs:
        if lines:
            lines.append("")
        if isinstance(paragraph, str):
            lines += wrap(paragraph, WIDTH - 6, indent)
        else:
            lines += [indent + line for line in paragraph]
    lines = [line.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') for line in lines]
    first = lines[0][len(indent):]
    if len(lines) == 1:
        return [indent + '"""' + first + '"""']
    return [indent + '"""' + first] + lines[1:] + [indent + '"""']


def sub_schema(schema, *path):
    """The schema at `path` below `schema` (best effort: {} where it cannot follow)."""
    for step in path:
        if not isinstance(schema, dict):
            return {}
        schema = schema.get(step, {})
    return schema if isinstance(schema, dict) else {}


def union_members(spelled):
    """The options of a spelled Union[...] (top-level commas), else the type itself."""
    if not (spelled.startswith("Union[") and spelled.endswith("]")):
        return [spelled]
    members, depth, start = [], 0, len("Union[")
    for index, char in enumerate(spelled[start:-1], start):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            members.append(spelled[start:index].strip())
            start = index + 1
        if depth < 0:
            return [spelled]  # "Union[A] ... [B]": not one Union
    return members + [spelled[start:-1].strip()]


def union(options):
    unique = []
    for option in options:
        for member in union_members(option):
            if member not in unique:
                unique.append(member)
    return unique[0] if len(unique) == 1 else "Union[%s]" % ", ".join(unique)


def optional(text, nullable):
    return "Optional[%s]" % text if nullable else text


class Wire:
    """wire.py's TypedDicts and aliases, emitted in dependency order (each after what it uses),
    and the spelling of every type: `mode` "wire" for what the daemon writes (faithful: lists,
    dicts, TypedDicts), "input" for what a caller passes (sequences and mappings; a dataclass of
    the package, or a mapping, for an object the package has one for). Spellings qualify names
    ("wire.X", "model.X"); each module unqualifies its own."""

    def __init__(self, protocol):
        self.protocol = protocol
        self.blocks = []
        self.taken = set()
        self.definitions = {}

    def claim(self, wanted, fallback_suffix=""):
        """A name no other TypedDict or alias has: `wanted`, else with the suffix, else numbered."""
        name = wanted
        if name in self.taken and fallback_suffix:
            name = wanted + fallback_suffix
        number = 2
        while name in self.taken:
            name, number = "%s%d" % (wanted, number), number + 1
        self.taken.add(name)
        return name

    def spell(self, node, schema, hint, mode, where=""):
        """`where` says where the value sits, for an object the schema does not describe."""
        return optional(self._spell(node, schema, hint, mode, where), node.nullable)

    def _spell(self, node, schema, hint, mode, where):
        if isinstance(node, t.Prim):
            return PRIMITIVES[node.kind]
        if isinstance(node, t.Enum):
            return literal(node.values)
        if isinstance(node, t.Const):
            return literal([node.value])
        if isinstance(node, t.Array):
            item = self.spell(node.item, sub_schema(schema, "items"), hint, mode, "An entry of " + where if where else "")
            return ("List[%s]" if mode == "wire" else "Sequence[%s]") % item
        if isinstance(node, t.Map):
            value = self.spell(node.value, sub_schema(schema, "additionalProperties"), hint, mode, "A value of " + where if where else "")
            return ("Dict[str, %s]" if mode == "wire" else "Mapping[str, %s]") % value
        if isinstance(node, t.Obj):
            title = schema.get("title")
            if mode == "input" and title in TITLED_MODELS:
                return "Union[%s, Mapping[str, Any]]" % model_reference(title)
            name = self.typed_dict(self.claim(title or hint), node, t.description_of(schema) or where, schema, mode)
            return self.object_reference(name, mode)
        if isinstance(node, t.Ref):
            return self.definition(node.name, mode)
        if isinstance(node, t.Extended):
            base = self.definition(node.base.name, "wire")
            if mode == "input" or not base.startswith("wire."):
                return self.definition(node.base.name, mode)
            name = self.typed_dict(self.claim(hint), node.extra, t.description_of(schema) or where, schema, mode, base[len("wire."):])
            return self.object_reference(name, mode)
        if isinstance(node, t.Union):
            return union([self.spell(option, {}, self.option_hint(hint, node, option, index), mode, where or "One form of %s." % hint)
                          for index, option in enumerate(node.options)])
        return "Any"

    @staticmethod
    def object_reference(name, mode):
        return "wire.%s" % name if mode == "wire" else "Union[wire.%s, Mapping[str, Any]]" % name

    @staticmethod
    def option_hint(hint, node, option, index):
        """A union's object option is named by its constant field (an update's op), else as the
        one object form, else by its position."""
        if isinstance(option, t.Obj):
            for field in option.fields:
                if isinstance(field.type, t.Const) and isinstance(field.type.value, str):
                    return hint + pascal(field.type.value)
            if sum(isinstance(o, t.Obj) for o in node.options) == 1:
                return hint + "Object"
        return "%s%d" % (hint, index + 1)

    def definition(self, name, mode):
        """A shared definition: a dataclass of the package (as input), a TypedDict or alias named
        after it, or the primitive it is."""
        if mode == "input" and name in INPUT_MODELS:
            return "Union[%s, Mapping[str, Any]]" % model_reference(INPUT_MODELS[name])
        if name in OPEN_DEFINITIONS:
            return OPEN_DEFINITIONS[name]
        key = (name, mode)
        if key in self.definitions:
            return self.definitions[key]
        node = t.definition(self.protocol, name)
        schema = self.protocol.defs[name]
        suffix = "Input" if mode == "input" else ""
        if isinstance(node, t.Obj):
            typed = self.claim(pascal(name), suffix)
            self.definitions[key] = self.object_reference(typed, mode)  # before its fields: it may hold itself
            self.typed_dict(typed, node, t.description_of(schema), schema, mode)
        elif isinstance(node, t.Union):
            alias = self.claim(pascal(name), suffix)
            self.definitions[key] = "wire." + alias
            value = self.spell(node, schema, alias, mode)
            self.blocks.append(comment(t.description_of(schema), "") + assignment(alias, value))
        else:
            self.definitions[key] = self.spell(node, schema, pascal(name), mode)
        return self.definitions[key]

    def typed_dict(self, name, obj, description, schema, mode, base=None):
        fields = [(f.name, self.spell(f.type, sub_schema(schema, "properties", f.name), name + pascal(f.name), mode,
                              "``%s`` of :class:`%s`." % (f.name, name)), f.required, f.description) for f in obj.fields]
        self.blocks.append(self.spell_typed_dict(name, fields, description, base))
        return name

    def spell_typed_dict(self, name, fields, description, base):
        """Class syntax, split into a base of the required keys and a total=False class when
        there are both kinds (Python 3.9 has no NotRequired); functional syntax where a key is
        a Python keyword."""
        required = [f for f in fields if f[2]]
        optional_ = [f for f in fields if not f[2]]
        doc = docstring([description[:1].upper() + description[1:] if description else "An object of the protocol."], "    ")
        parent = base or "TypedDict"
        if required and optional_:
            inner = "_%sRequired" % name
            return (self.spell_class(inner, required, parent, False, ['    """The keys every %s has."""' % name]) + ["", ""]
                    + self.spell_class(name, optional_, inner, True, doc))
        return self.spell_class(name, fields, parent, bool(optional_), doc)

    @staticmethod
    def spell_class(name, fields, parent, partial, doc):
        if any(not f[0].isidentifier() or keyword.iskeyword(f[0]) for f in fields):
            if parent != "TypedDict":
                raise DescriptionError("%s: a key that is a Python keyword, in an object with a base" % name)
            entries = ["    %s: %s," % (python_string(f[0]), f[1]) for f in fields]
            return (comment(" ".join(doc).replace('"""', "").strip(), "")
                    + ["%s = TypedDict(%s, {" % (name, python_string(name))] + entries + ["}%s)" % (", total=False" if partial else "")])
        lines = ["class %s(%s%s):" % (name, parent, ", total=False" if partial else "")] + doc
        for key, spelled, _, about in fields:
            lines += comment(about, "    ")
            lines.append("    %s: %s" % (key, spelled))
        return lines

    def text(self):
        body = []
        for block in self.blocks:
            body += ["", ""] + block
        code = unqualify("\n".join(body), "wire")
        modules = sorted(set(re.findall(r"\b(model|updates)\.", code)))
        return "\n".join([
            '"""The protocol\'s JSON objects as ``TypedDict``s: what a method returns where no dataclass',
            "reads it (``client.daemon_hello()`` is a :class:`DaemonHelloResult`), the shared objects of",
            "protocol/schemas/common.json that those hold, and the objects parameters take. Keys are the",
            "protocol's own (lowerCamel). Results are open: a newer daemon may add keys within protocol",
            "version 1; these types list the keys this version knows.",
            "",
            GENERATED + '"""',
            "from __future__ import annotations",
            "",
            "from typing import %s" % ", ".join(typing_names(code, "TypedDict")),
        ] + (["", "from . import %s" % ", ".join(modules)] if modules else [])) + "\n" + code + "\n"


MODEL_MODULES = {"Update": "updates"}


def model_reference(name):
    return "%s.%s" % (MODEL_MODULES.get(name, "model"), name)


def unqualify(code, module):
    return re.sub(r"\b%s\.(?=[A-Za-z_])" % module, "", code)


def import_lines(module, names):
    line = "from %s import %s" % (module, ", ".join(names))
    if len(line) <= WIDTH:
        return [line]
    return ["from %s import (" % module] + wrap(", ".join(names) + ",", WIDTH - 4, "    ") + [")"]


def assignment(name, value):
    """`name = value`, a long Union one member a line."""
    line = "%s = %s" % (name, value)
    members = union_members(value)
    if len(line) <= WIDTH or len(members) == 1:
        return [line]
    return ["%s = Union[" % name] + ["    %s," % member for member in members] + ["]"]


def comment(text, indent):
    return [indent + "#: " + line for line in wrap(text, WIDTH - len(indent) - 3)] if text else []


def typing_names(code, *always):
    names = {"Any", "Dict", "List", "Literal", "Mapping", "Optional", "Sequence", "Tuple", "Union", "Callable", "TypeVar",
             "FrozenSet", "Type", "cast"}
    return sorted(set(always) | {n for n in names if re.search(r"\b%s\b" % n, code)})


class Methods:
    """_methods.py: SyncMethods and AsyncMethods."""

    def __init__(self, protocol, wire):
        self.protocol = protocol
        self.wire = wire
        # Results first: their TypedDicts take the plain names (inputs of the same
        # definition are then ...Input), whatever order the methods come in.
        self.results = {m.name: self.result(m) for m in protocol.methods if m.name not in HAND_WRITTEN}
        self.parameters = {}

    def result(self, method):
        """(the Python type, the expression reading `_result` into it, or None to cast it)."""
        node = t.convert(method.result, self.protocol, method.name)
        if isinstance(node, t.Ref) and node.name in RESULT_MODELS:
            model = RESULT_MODELS[node.name]
            return model, "%s.from_json(_result)" % model
        if isinstance(node, t.Obj):
            fields = {f.name for f in node.fields}
            for shape, model in RESULT_SHAPES.items():
                if fields >= set(shape):
                    return model, "%s.from_json(_result)" % model
            if len(node.fields) == 1 and isinstance(node.fields[0].type, t.Ref) and node.fields[0].type.name in RESULT_MODELS:
                field = node.fields[0]
                model = RESULT_MODELS[field.type.name]
                if field.type.nullable or not field.required:
                    return "Optional[%s]" % model, "_optional(%s.from_json, _result.get(%s))" % (model, python_string(field.name))
                return model, "%s.from_json(_result[%s])" % (model, python_string(field.name))
        return self.wire.spell(node, method.result, pascal(method.name) + "Result", "wire", "The result of ``%s``." % method.name), None

    def parameter(self, method, parameter):
        key = (method.name, parameter.name)
        if key not in self.parameters:
            self.parameters[key] = self.spell_parameter(method, parameter)
        return self.parameters[key]

    def spell_parameter(self, method, parameter):
        node = t.convert(parameter.schema, self.protocol, method.name + "." + parameter.name)
        spelled = self.wire.spell(node, parameter.schema, pascal(method.name) + pascal(parameter.name), "input",
                                  "``%s`` of ``%s``." % (parameter.name, method.name))
        reference = node.base if isinstance(node, t.Extended) else node
        converter = CONVERTERS.get(reference.name) if isinstance(reference, t.Ref) else None
        return spelled, converter

    def method(self, method, asynchronous):
        name = method_name(method)
        required, keywords, pairs = ["self"], [], []
        for parameter in method.parameters:
            spelled, converter = self.parameter(method, parameter)
            argument = identifier(parameter.name)
            if parameter.required:
                required.append("%s: %s" % (argument, spelled))
                value = "%s(%s)" % (converter, argument) if converter else argument
            else:
                keywords.append("%s: Optional[%s] = None" % (argument, spelled))
                value = "None if %s is None else %s(%s)" % (argument, converter, argument) if converter else argument
            pairs.append("(%s, %s)" % (python_string(parameter.name), value))
        if "timeout" in [identifier(p.name) for p in method.parameters]:
            raise DescriptionError("%s: a parameter named timeout hides the call's own timeout= (name it otherwise)" % method.name)
        # Every call's own deadline (the clients' Timeout), after the protocol's parameters.
        arguments = required + ["*"] + keywords + ["timeout: Optional[float] = -1.0"]
        returns, read = self.results[method.name]
        prefix = "async def" if asynchronous else "def"
        head = "    %s %s(%s) -> %s:" % (prefix, name, ", ".join(arguments), returns)
        if len(head) > WIDTH:
            head = "\n".join(["    %s %s(" % (prefix, name)] + ["            %s," % a for a in arguments] + ["    ) -> %s:" % returns])
        invoke = "%sself._invoke(%s, " % ("await " if asynchronous else "", python_string(method.name))
        lines = [head] + self.doc(method)
        # Locals start with "_": no parameter's name does.
        if pairs:
            lines.append("        _request = _params([%s])" % ", ".join(pairs))
            if len(lines[-1]) > WIDTH:
                lines[-1:] = ["        _request = _params(["] + ["            %s," % pair for pair in pairs] + ["        ])"]
        call = invoke + ("_request, timeout)" if pairs else "{}, timeout)")
        if read is None:
            read = "cast(%s, _result)" % returns
            if len("        return cast(%s, %s)" % (returns, call)) <= WIDTH:
                return lines + ["        return cast(%s, %s)" % (returns, call)]
        read = read.replace("(result", "(_result")
        if not read.startswith("cast("):
            # A result of the wrong shape is the client's ProtocolError, never a KeyError or TypeError.
            read = "_read_model(lambda _result: %s, _result, %s)" % (read, python_string("the result of " + method.name))
        tail = ["        return " + read]
        if len(tail[0]) > WIDTH and read.startswith("_read_model("):
            inner = read[len("_read_model("):]
            tail = ["        return _read_model(", "            " + inner]
            if len(tail[1]) > WIDTH:
                function, rest = inner.split(", _result, ", 1)
                tail[1:] = ["            %s," % function, "            _result, %s" % rest]
        return lines + ["        _result = " + call] + tail

    def doc(self, method):
        paragraphs = ["``%s``: %s (protocol/%s)." % (method.name, method.summary, method.doc)]
        rows = []
        for parameter in method.parameters:
            about = summaries.parameter_summary(parameter, self.protocol) or summaries.display(
                t.convert(parameter.schema, self.protocol, method.name))
            wrapped = wrap("%s: %s" % (identifier(parameter.name), about), WIDTH - 12)
            rows += wrapped[:1] + ["    " + line for line in wrapped[1:]]
        if rows:
            paragraphs.append(rows)
        if method.errors:
            paragraphs.append("Errors besides the request errors: %s." % ", ".join(method.errors))
        return docstring(paragraphs, "        ")

    def text(self):
        body = []
        for asynchronous in (False, True):
            body += ["", "", "class %s:" % ("AsyncMethods" if asynchronous else "SyncMethods")]
            body += docstring(["Every protocol method as a typed %s (protocol/interface.json): required parameters "
                               "positional, optional ones keyword-only and left out of the request when None; params "
                               "written in the schema's order. Each also takes ``timeout=``: seconds for the whole call "
                               "(-1, the default: the client's ``timeout``; None: no deadline), after which it raises "
                               "``layoutd.Timeout``. Written by hand in the client: %s." % (
                                   "coroutine" if asynchronous else "method", ", ".join(HAND_WRITTEN))], "    ")
            body += ["", "    %sdef _invoke(self, method: str, params: JSONObject, timeout: Optional[float] = -1.0) -> JSONObject:"
                     % ("async " if asynchronous else ""),
                     "        raise NotImplementedError"]
            for method in self.protocol.methods:
                if method.name not in HAND_WRITTEN:
                    body += [""] + self.method(method, asynchronous)
        code = "\n".join(body)
        models = sorted(set(re.findall(r"\bmodel\.(\w+)", code)) | set(re.findall(r"\b(\w+)\.from_json", code))
                        | ({"key_to_json"} if "key_to_json(" in code else set()))
        updates = sorted(set(re.findall(r"\bupdates\.(\w+)", code)))
        code = unqualify(unqualify(code, "model"), "updates")
        header = [
            '"""Typed methods for every protocol method, for the blocking and the asyncio client',
            "(``Client`` and ``AsyncClient`` inherit them).",
            "",
            GENERATED + '"""',
            "from __future__ import annotations",
            "",
            "from typing import %s" % ", ".join(typing_names(code, "Any", "Callable", "Mapping", "Optional", "Sequence",
                                                             "Tuple", "TypeVar")),
            "",
            "from . import wire",
            "from .core import read_model as _read_model",
        ] + import_lines(".model", sorted(set(models) | {"JSONObject", "to_wire"}))
        if updates:
            header += import_lines(".updates", updates)
        header += [
            "",
            'T = TypeVar("T")',
            "",
            "",
            "def _params(pairs: Sequence[Tuple[str, Any]]) -> JSONObject:",
            '    """The request\'s params in schema order, without the omitted (None) ones."""',
            "    return {key: to_wire(value) for key, value in pairs if value is not None}",
            "",
            "",
            "def _optional(read: Callable[[Mapping[str, Any]], T], value: Any) -> Optional[T]:",
            '    """An object read by `read`, or None for JSON null."""',
            "    return read(value) if isinstance(value, dict) else None",
        ]
        return "\n".join(header) + "\n" + code + "\n"


def errors_module(protocol):
    names = [e.name for e in protocol.errors]
    lines = [
        '"""One exception class per error name of the protocol (protocol/errors.md), all subclasses of',
        ":class:`~layoutd.errors.LayoutdError`; ``ERRORS`` maps each name to its class.",
        "",
        GENERATED + '"""',
        "from __future__ import annotations",
        "",
        "from typing import Dict, FrozenSet, Type",
        "",
        "from ._errorbase import LayoutdError",
        "",
        "__all__ = [",
    ]
    lines += wrap(", ".join(python_string(n) for n in names) + ",", WIDTH - 4, "    ")
    lines.append("]")
    for error in protocol.errors:
        paragraphs = ["%s%s." % (error.meaning[:1].upper(), error.meaning[1:])]
        raised_by = [part for part in (", ".join(m.name for m in protocol.methods_raising(error)), error.raised_by) if part]
        paragraphs.append("Raised by: %s." % "; ".join(raised_by) if raised_by else "Raised by no method of this version.")
        if error.closes_connection:
            paragraphs.append("Written with ``id`` null; the daemon then closes the connection.")
        rows = []
        for name, schema, required in error.data_fields:
            node = t.convert(schema, protocol, error.name + ".data." + name)
            about = t.description_of(schema)
            rows += wrap("``%s`` (%s%s)%s" % (name, summaries.display(node), "" if required else ", optional",
                                               ": " + about if about else ""), WIDTH - 12)
        if rows:
            paragraphs.append(["``data``:"] + ["- " + rows[0]] + [("- " if row.startswith("``") else "  ") + row for row in rows[1:]])
        lines += ["", "", "class %s(LayoutdError):" % error.name] + docstring(paragraphs, "    ")
        lines += ["", "    NAME, CODE = %s, %d" % (python_string(error.name), error.code)]
    lines += [
        "",
        "",
        "#: Every error class by its name.",
        "ERRORS: Dict[str, Type[LayoutdError]] = {cls.NAME: cls for cls in (",
    ]
    lines += wrap(", ".join(names) + ")}", WIDTH - 4, "    ")
    closing = [e.name for e in protocol.errors if e.closes_connection]
    line_scope = [e.name for e in protocol.errors if e.scope == "line"]
    lines += [
        "",
        "#: Errors written with ``id`` null after which the daemon closes the connection",
        "#: (protocol/README.md §9).",
        "CONNECTION_ERRORS: FrozenSet[str] = frozenset({",
    ] + wrap(", ".join(python_string(n) for n in closing) + ",", WIDTH - 4, "    ") + [
        "})",
        "",
        "#: Errors that answer a line which is not a readable request (``id`` null when its id could not",
        "#: be read): every other error with ``id`` null is about the connection itself.",
        "LINE_ERRORS: FrozenSet[str] = frozenset({",
    ] + wrap(", ".join(python_string(n) for n in line_scope) + ",", WIDTH - 4, "    ") + [
        "})",
    ]
    return "\n".join(lines) + "\n"


def names_module(protocol):
    constants = []
    seen = {}
    for kind, entries in (("METHOD", protocol.methods), ("EVENT", protocol.events)):
        for entry in entries:
            constant = "%s_%s" % (kind, upper_snake(entry.name))
            if constant in seen:
                raise DescriptionError("%s and %s are both %s in Python" % (seen[constant], entry.name, constant))
            seen[constant] = entry.name
            constants.append("%s = %s" % (constant, python_string(entry.name)))
    lines = [
        '"""The protocol\'s versions and the names of its methods and events.',
        "",
        GENERATED + '"""',
        "from __future__ import annotations",
        "",
        "from typing import FrozenSet, Tuple",
        "",
        "#: The protocol versions this package speaks (``daemon.hello``'s ``protocol``).",
        "PROTOCOL_VERSIONS: Tuple[int, ...] = (%s)" % "".join("%d, " % v for v in protocol.versions).rstrip(" "),
        "",
        "#: Every method, in protocol/interface.json's order.",
        "METHODS: Tuple[str, ...] = (",
    ]
    lines += wrap(", ".join(python_string(m.name) for m in protocol.methods) + ",", WIDTH - 4, "    ")
    lines += [
        ")",
        "",
        "#: The methods that change a view (they take ``dryRun`` and cause ``view.invalidated``).",
        "MUTATING_METHODS: FrozenSet[str] = frozenset({",
    ]
    lines += wrap(", ".join(python_string(m.name) for m in protocol.methods if m.mutates) + ",", WIDTH - 4, "    ")
    lines += [
        "})",
        "",
        "#: Every event this version knows (others are passed through, never an error).",
        "EVENTS: Tuple[str, ...] = (",
    ] + wrap(", ".join(python_string(e.name) for e in protocol.events) + ",", WIDTH - 4, "    ") + [
        ")",
        "",
        "#: Each name as a constant, for the hand-written parts of the package.",
    ] + constants
    return "\n".join(lines) + "\n"


def outputs(protocol):
    wire = Wire(protocol)
    methods = Methods(protocol, wire).text()
    return {
        os.path.join(PACKAGE, "_names.py"): names_module(protocol),
        os.path.join(PACKAGE, "_methods.py"): methods,
        os.path.join(PACKAGE, "wire.py"): wire.text(),
        os.path.join(PACKAGE, "_errors.py"): errors_module(protocol),
    }
