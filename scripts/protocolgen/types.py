"""JSON Schema (the subset protocol/ uses) as a small tree of types, which each language's
generator maps to its own: primitives, string enums and constants, arrays, maps, objects with
fields, references to shared definitions, unions and "anything"."""


class Type:
    nullable = False


class Prim(Type):
    """string, integer, number, boolean or null."""

    def __init__(self, kind):
        self.kind = kind


class Enum(Type):
    def __init__(self, values):
        self.values = values


class Const(Type):
    def __init__(self, value):
        self.value = value


class Array(Type):
    def __init__(self, item):
        self.item = item


class Map(Type):
    """An object of any keys whose values have one type."""

    def __init__(self, value):
        self.value = value


class Field:
    def __init__(self, name, type, required, description):
        self.name = name
        self.type = type
        self.required = required
        self.description = description


class Obj(Type):
    def __init__(self, fields, closed):
        self.fields = fields
        self.closed = closed


class Ref(Type):
    """A definition of schemas/common.json, by name; `required` names fields an allOf makes
    required beyond the definition's own."""

    def __init__(self, name, required=()):
        self.name = name
        self.required = list(required)


class Union(Type):
    def __init__(self, options):
        self.options = options


class Any(Type):
    pass


class Extended(Type):
    """A definition with fields of its own added (allOf of a reference and an object)."""

    def __init__(self, base, extra):
        self.base = base
        self.extra = extra


def description_of(schema):
    return " ".join(schema.get("description", "").split())


def convert(schema, protocol, where="?"):
    """The type a schema describes. References stay references (by definition name)."""
    if schema is True or schema == {}:
        return Any()
    if "$ref" in schema:
        return Ref(protocol.def_name(schema["$ref"], where))
    if "allOf" in schema:
        parts = schema["allOf"]
        references = [p for p in parts if "$ref" in p]
        if len(references) == 1:
            base = Ref(protocol.def_name(references[0]["$ref"], where))
            extra_required = []
            extra_fields = []
            for part in parts:
                if part is references[0]:
                    continue
                extra_required += part.get("required", [])
                for name, child in part.get("properties", {}).items():
                    extra_fields.append(Field(name, convert(child, protocol, where + "." + name),
                                              name in part.get("required", []), description_of(child)))
            base.required = [name for name in extra_required if name not in [f.name for f in extra_fields]]
            # Properties beside the allOf narrow the reference's own (bounds): not new fields.
            if extra_fields:
                return Extended(base, Obj(extra_fields, closed=False))
            return base
        return Any()
    if "oneOf" in schema or "anyOf" in schema:
        options = [convert(option, protocol, where) for option in schema.get("oneOf", schema.get("anyOf"))]
        if "type" in schema and schema.get("type") == "object" and all(isinstance(o, Obj) for o in options):
            return Union(options)
        nulls = [o for o in options if isinstance(o, Prim) and o.kind == "null"]
        rest = [o for o in options if o not in nulls]
        result = rest[0] if len(rest) == 1 else Union(rest)
        if nulls:
            result.nullable = True
        return result
    if "const" in schema:
        return Const(schema["const"])
    if "enum" in schema:
        return Enum(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        options = [convert(dict(schema, type=k), protocol, where) for k in kind if k != "null"]
        result = options[0] if len(options) == 1 else Union(options)
        result.nullable = "null" in kind
        return result
    if kind == "array":
        return Array(convert(schema.get("items", {}), protocol, where + "[]"))
    if kind == "object":
        properties = schema.get("properties")
        if properties is None:
            extra = schema.get("additionalProperties")
            return Map(convert(extra, protocol, where) if isinstance(extra, dict) else Any())
        required = schema.get("required", [])
        fields = [Field(name, convert(child, protocol, where + "." + name), name in required, description_of(child))
                  for name, child in properties.items()]
        return Obj(fields, closed=schema.get("additionalProperties") is False)
    if kind in ("string", "integer", "number", "boolean", "null"):
        return Prim(kind)
    return Any()


def definition(protocol, name):
    return convert(protocol.defs[name], protocol, "common.json#/$defs/" + name)
