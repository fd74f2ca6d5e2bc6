"""The C client's copy of the protocol's names (clients/c): include/layoutd/protocol.h, a macro
for every method, event and error name and every error code, with the declarations of a small
lookup API; and src/protocol.c, the tables behind it.

The tables stay inside the library and are reached through functions (layoutd_method_at, ...):
an exported array would be copied into each executable that reads it (a copy relocation), and
a later library with a longer table would then overrun the copy."""
import os

from .model import ROOT, DescriptionError
from .text import GENERATED, c_string, upper_snake

CLIENT = os.path.join(ROOT, "clients", "c")
HEADER = os.path.join(CLIENT, "include", "layoutd", "protocol.h")
SOURCE = os.path.join(CLIENT, "src", "protocol.c")


def macro(prefix, name):
    return "LAYOUTD_%s_%s" % (prefix, upper_snake(name))


def check_unique(prefix, names):
    """Two names spelled alike in upper snake case would define one macro twice."""
    seen = {}
    for name in names:
        spelled = macro(prefix, name)
        if spelled in seen:
            raise DescriptionError("%s and %s are both %s in C" % (seen[spelled], name, spelled))
        seen[spelled] = name


def defines(rows):
    """`#define NAME VALUE` lines, the values aligned."""
    width = max(len(name) for name, _ in rows)
    return ["#define %s %s" % (name.ljust(width), value) for name, value in rows]


def header(protocol):
    check_unique("METHOD", [m.name for m in protocol.methods])
    check_unique("EVENT", [e.name for e in protocol.events])
    check_unique("ERROR", [e.name for e in protocol.errors])
    lines = [
        "/* layoutd/protocol.h: the names of the layoutd protocol's methods, events and errors, the",
        "   errors' codes, and tables of them. Included by layoutd/client.h.",
        "   " + GENERATED + " */",
        "#ifndef LAYOUTD_PROTOCOL_H",
        "#define LAYOUTD_PROTOCOL_H",
        "",
        "#include <stdbool.h>",
        "#include <stddef.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        "/* The protocol version these names belong to; daemon.hello offers it. */",
        "#define LAYOUTD_PROTOCOL_VERSION %d" % max(protocol.versions),
        "",
        "/* Methods (protocol/README.md, \"All methods\"). */",
    ]
    lines += defines([(macro("METHOD", m.name), c_string(m.name)) for m in protocol.methods])
    lines += ["", "/* Events (protocol/README.md, \"All events\"). Ignore events whose names you do not know. */"]
    lines += defines([(macro("EVENT", e.name), c_string(e.name)) for e in protocol.events])
    lines += [
        "",
        "/* Errors (protocol/errors.md): each name, then its code. Switch on the name (layoutd_error's",
        "   `name`), not on the code: two names may share a code, and a name newer than this header",
        "   arrives with -32000. */",
    ]
    rows = []
    for error in protocol.errors:
        rows.append((macro("ERROR", error.name), c_string(error.name)))
        rows.append((macro("CODE", error.name), "(%d)" % error.code))
    lines += defines(rows)
    lines += [
        "",
        "/* The tables, read through functions. Entries live as long as the process; the library only",
        "   hands out pointers to its own entries, so these structs may gain fields at their end. */",
        "typedef struct {",
        "    const char *name;      /* \"view.scroll\" */",
        "    const char *summary;   /* what it does, in a few words */",
        "    bool mutates;          /* a mutation: an epoch step and view.invalidated to subscribers */",
        "} layoutd_method_info;",
        "",
        "typedef struct {",
        "    const char *name;      /* \"view.invalidated\" */",
        "    bool connection_wide;  /* for the connection (no subscription), not for each subscription */",
        "} layoutd_event_info;",
        "",
        "typedef struct {",
        "    const char *name;         /* \"ViewNotFound\" */",
        "    int code;                 /* -32001 */",
        "    const char *meaning;      /* for people */",
        "    bool closes_connection;   /* the daemon closes the connection after writing it */",
        "} layoutd_error_info;",
        "",
        "/* Every method of the protocol in the description's order: index 0 ... count - 1 (NULL",
        "   past the end); by name (NULL when the name is not a method of this version). */",
        "size_t layoutd_method_count(void);",
        "const layoutd_method_info *layoutd_method_at(size_t index);",
        "const layoutd_method_info *layoutd_method_named(const char *name);",
        "",
        "size_t layoutd_event_count(void);",
        "const layoutd_event_info *layoutd_event_at(size_t index);",
        "const layoutd_event_info *layoutd_event_named(const char *name);",
        "",
        "size_t layoutd_error_count(void);",
        "const layoutd_error_info *layoutd_error_at(size_t index);",
        "const layoutd_error_info *layoutd_error_named(const char *name);",
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "#endif",
    ]
    return "\n".join(lines) + "\n"


def source(protocol):
    lines = [
        "/* The tables behind layoutd/protocol.h's lookup functions.",
        "   " + GENERATED + " */",
        '#include "layoutd/protocol.h"',
        "",
        "#include <string.h>",
        "",
        "static const layoutd_method_info methods[] = {",
    ]
    for method in protocol.methods:
        lines.append("    {%s, %s, %s}," % (macro("METHOD", method.name), c_string(method.summary),
                                           "true" if method.mutates else "false"))
    lines += ["};", "", "static const layoutd_event_info events[] = {"]
    for event in protocol.events:
        lines.append("    {%s, %s}," % (macro("EVENT", event.name), "true" if event.scope == "connection" else "false"))
    lines += ["};", "", "static const layoutd_error_info errors[] = {"]
    for error in protocol.errors:
        lines.append("    {%s, %s, %s, %s}," % (macro("ERROR", error.name), macro("CODE", error.name), c_string(error.meaning),
                                                "true" if error.closes_connection else "false"))
    lines += ["};", ""]
    for kind, table in (("method", "methods"), ("event", "events"), ("error", "errors")):
        lines += [
            "size_t layoutd_%s_count(void) { return sizeof %s / sizeof %s[0]; }" % (kind, table, table),
            "",
            "const layoutd_%s_info *layoutd_%s_at(size_t index)" % (kind, kind),
            "{",
            "    return index < sizeof %s / sizeof %s[0] ? &%s[index] : NULL;" % (table, table, table),
            "}",
            "",
            "const layoutd_%s_info *layoutd_%s_named(const char *name)" % (kind, kind),
            "{",
            "    for (size_t i = 0; name && i < sizeof %s / sizeof %s[0]; i++)" % (table, table),
            "        if (!strcmp(%s[i].name, name)) return &%s[i];" % (table, table),
            "    return NULL;",
            "}",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def outputs(protocol):
    return {HEADER: header(protocol), SOURCE: source(protocol)}
