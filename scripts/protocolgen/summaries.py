"""Short, language-neutral spellings of types and results, for daemon.describe's parameter
lists and the tables in protocol/ (the schemas stay the exact statement)."""
from . import types as t


def display(node):
    """`string`, `integer`, `[section]`, `point`, `{x, y?}`, `a|b`, ... for a type."""
    text = _display(node)
    return text + "|null" if node.nullable else text


def _display(node):
    if isinstance(node, t.Prim):
        return node.kind
    if isinstance(node, t.Enum):
        return "|".join(str(value) for value in node.values)
    if isinstance(node, t.Const):
        return str(node.value)
    if isinstance(node, t.Array):
        return "[%s]" % display(node.item)
    if isinstance(node, t.Map):
        return "{name: %s}" % display(node.value)
    if isinstance(node, t.Obj):
        return "{%s}" % ", ".join(f.name + ("" if f.required else "?") for f in node.fields)
    if isinstance(node, t.Ref):
        return node.name
    if isinstance(node, t.Extended):
        return display(node.base)
    if isinstance(node, t.Union):
        return "|".join(display(option) for option in node.options)
    return "any"


def parameter_summary(parameter, protocol):
    """The parameter's description, else the description of the definition it refers to."""
    summary = t.description_of(parameter.schema)
    if not summary and "$ref" in parameter.schema:
        summary = t.description_of(protocol.defs[protocol.def_name(parameter.schema["$ref"])])
    return summary


def result_summary(method, protocol):
    """`invalidation`, `snapshot` or `{field, field?}`: what a method answers, in a word."""
    node = t.convert(method.result, protocol, method.name)
    if isinstance(node, t.Ref):
        return node.name
    if isinstance(node, t.Extended):
        return "%s with %s" % (node.base.name, ", ".join(f.name for f in node.extra.fields))
    return display(node)
