"""The protocol description (protocol/interface.json and the shared schemas it refers to), read
and checked once, with the facts every generator derives from it.

Nothing here writes a file: `outputs()` in each generator returns {path: text}."""
import json
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROTOCOL = os.path.join(ROOT, "protocol")
INTERFACE = os.path.join(PROTOCOL, "interface.json")
COMMON = os.path.join(PROTOCOL, "schemas", "common.json")
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

METHOD_KEYS = ("name", "summary", "doc", "mutates", "errors", "events", "params", "result")
EVENT_KEYS = ("name", "scope", "doc", "schema")
ERROR_KEYS = ("name", "code", "meaning", "scope", "closesConnection", "raisedBy", "data")
# Where an error can arise. "listed": only from the methods that list it (the default);
# "line": any line, before a method is known; "request": any method's request;
# "connection": a connection-level line (id null) that no request asked for; "reserved".
ERROR_SCOPES = ("listed", "line", "request", "connection", "reserved")
EVENT_SCOPES = ("subscription", "connection")


class DescriptionError(Exception):
    """protocol/interface.json says something impossible; the message says where."""


def load_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _check_keys(entry, allowed, required, where):
    for key in entry:
        if key not in allowed:
            raise DescriptionError("%s: unknown key %r (known: %s)" % (where, key, ", ".join(allowed)))
    for key in required:
        if key not in entry:
            raise DescriptionError("%s: %r is required" % (where, key))


def anchor_of(heading):
    """GitHub's anchor for a Markdown heading: lower case, punctuation but '-' and '_' dropped,
    spaces as '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def document_anchors(name):
    path = os.path.join(PROTOCOL, name)
    if not os.path.exists(path):
        raise DescriptionError("doc %s: no such file in protocol/" % name)
    anchors = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"^#{1,6} (.*)$", line)
            if match:
                anchors.add(anchor_of(match.group(1)))
    return anchors


class Parameter:
    def __init__(self, name, schema, required):
        self.name = name
        self.schema = schema
        self.required = required


class Method:
    def __init__(self, entry):
        where = "method %s" % entry.get("name", "?")
        _check_keys(entry, METHOD_KEYS, METHOD_KEYS, where)
        self.name = entry["name"]
        self.summary = entry["summary"]
        self.doc = entry["doc"]
        self.mutates = entry["mutates"]
        self.errors = list(entry["errors"])
        self.events = list(entry["events"])
        self.params = entry["params"]
        self.result = entry["result"]
        if not re.match(r"^[a-z]+(\.[a-z][A-Za-z]*)+$", self.name):
            raise DescriptionError("%s: a method name is dot-separated lowerCamel words" % where)
        if self.params.get("type") != "object" or self.params.get("additionalProperties") is not False:
            raise DescriptionError("%s: params must be a closed object schema (the daemon refuses unknown fields)" % where)
        if self.result.get("additionalProperties") is False:
            raise DescriptionError("%s: a result must stay open (fields may be added within a version)" % where)
        properties = self.params.get("properties", {})
        required = self.params.get("required", [])
        for name in required:
            if name not in properties:
                raise DescriptionError("%s: required parameter %r is not a property" % (where, name))
        self.parameters = [Parameter(name, schema, name in required) for name, schema in properties.items()]
        if self.mutates != ("dryRun" in properties):
            raise DescriptionError("%s: a method mutates exactly when it takes dryRun" % where)
        if self.mutates and "view.invalidated" not in self.events:
            raise DescriptionError("%s: a mutating method causes view.invalidated" % where)

    @property
    def takes_view(self):
        """Whether the method works on an existing view named by `view`."""
        return any(p.name == "view" and p.required for p in self.parameters) and self.name != "view.create"


class Event:
    def __init__(self, entry):
        where = "event %s" % entry.get("name", "?")
        _check_keys(entry, EVENT_KEYS, EVENT_KEYS, where)
        self.name = entry["name"]
        self.scope = entry["scope"]
        self.doc = entry["doc"]
        self.schema = entry["schema"]
        if self.scope not in EVENT_SCOPES:
            raise DescriptionError("%s: scope must be one of %s" % (where, ", ".join(EVENT_SCOPES)))
        self.params = self.schema.get("properties", {}).get("params", {})


class Error:
    def __init__(self, entry):
        where = "error %s" % entry.get("name", "?")
        _check_keys(entry, ERROR_KEYS, ("name", "code", "meaning"), where)
        self.name = entry["name"]
        self.code = entry["code"]
        self.meaning = entry["meaning"]
        self.scope = entry.get("scope", "listed")
        self.closes_connection = entry.get("closesConnection", False)
        self.raised_by = entry.get("raisedBy")
        self.data = entry.get("data")
        if self.scope not in ERROR_SCOPES:
            raise DescriptionError("%s: scope must be one of %s" % (where, ", ".join(ERROR_SCOPES)))
        if not (-32768 <= self.code <= -32000):
            raise DescriptionError("%s: codes are JSON-RPC's (-32768...-32000)" % where)
        if not re.match(r"^[A-Z][A-Za-z]+$", self.name):
            raise DescriptionError("%s: an error name is UpperCamel" % where)

    @property
    def data_fields(self):
        """[(name, schema, required)] of `data`."""
        if not self.data:
            return []
        required = self.data.get("required", [])
        return [(name, schema, name in required) for name, schema in self.data.get("properties", {}).items()]


class Protocol:
    def __init__(self, interface=None, common=None):
        interface = interface if interface is not None else load_json(INTERFACE)
        self.common = common if common is not None else load_json(COMMON)
        _check_keys(interface, ("description", "protocol", "methods", "events", "errors"),
                    ("description", "protocol", "methods", "events", "errors"), "interface.json")
        self.description = interface["description"]
        self.versions = interface["protocol"]
        self.errors = [Error(entry) for entry in interface["errors"]]
        self.events = [Event(entry) for entry in interface["events"]]
        self.methods = [Method(entry) for entry in interface["methods"]]
        self.defs = self.common["$defs"]
        self._check()

    def _check(self):
        for kind, entries in (("method", self.methods), ("event", self.events), ("error", self.errors)):
            names = [entry.name for entry in entries]
            for name in names:
                if names.count(name) > 1:
                    raise DescriptionError("%s %s is described twice" % (kind, name))
        errors = {error.name: error for error in self.errors}
        events = {event.name for event in self.events}
        anchors = {}
        for entry in self.methods + self.events:
            document, _, anchor = entry.doc.partition("#")
            if document not in anchors:
                anchors[document] = document_anchors(document)
            if anchor and anchor not in anchors[document]:
                raise DescriptionError("%s: doc %s: no heading with anchor #%s" % (entry.name, entry.doc, anchor))
        for method in self.methods:
            for name in method.errors:
                if name not in errors:
                    raise DescriptionError("method %s: unknown error %s" % (method.name, name))
                if errors[name].scope != "listed":
                    raise DescriptionError("method %s: %s has scope %s, so no method lists it" % (method.name, name, errors[name].scope))
            for name in method.events:
                if name not in events:
                    raise DescriptionError("method %s: unknown event %s" % (method.name, name))
            if method.takes_view and "ViewNotFound" not in method.errors:
                raise DescriptionError("method %s: it names a view, so it may raise ViewNotFound" % method.name)
            if any(p.name == "ifEpoch" for p in method.parameters) and "StaleEpoch" not in method.errors:
                raise DescriptionError("method %s: it takes ifEpoch, so it may raise StaleEpoch" % method.name)
        self._check_refs()

    def _check_refs(self):
        def walk(value, where):
            if isinstance(value, dict):
                reference = value.get("$ref")
                if reference is not None:
                    self.def_name(reference, where)
                for key, child in value.items():
                    walk(child, where)
            elif isinstance(value, list):
                for child in value:
                    walk(child, where)
        for method in self.methods:
            walk(method.params, method.name + " params")
            walk(method.result, method.name + " result")
        for event in self.events:
            walk(event.schema, event.name)

    def def_name(self, reference, where="?"):
        """The common.json definition a $ref names (from a method or event schema, or from
        inside common.json)."""
        match = re.match(r"^(?:\.\./common\.json|common\.json)?#/\$defs/(\w+)$", reference)
        if not match or match.group(1) not in self.common["$defs"]:
            raise DescriptionError("%s: $ref %s names no definition in schemas/common.json" % (where, reference))
        return match.group(1)

    def method(self, name):
        return next(m for m in self.methods if m.name == name)

    def error(self, name):
        return next(e for e in self.errors if e.name == name)

    def event(self, name):
        return next(e for e in self.events if e.name == name)

    def errors_of(self, method):
        """Every error `method` may answer with: the request-level ones, then its own."""
        return [e.name for e in self.errors if e.scope in ("line", "request")] + method.errors

    def methods_raising(self, error):
        return [m for m in self.methods if error.name in m.errors]
