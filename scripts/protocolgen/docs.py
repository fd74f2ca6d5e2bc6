"""The tables in protocol/README.md (methods, events) and protocol/errors.md (errors), each
between a pair of marker comments; the prose around them is kept by hand."""
import os
import re

from . import summaries
from .model import PROTOCOL, DescriptionError

README = os.path.join(PROTOCOL, "README.md")
ERRORS = os.path.join(PROTOCOL, "errors.md")


def replace_between(text, name, table, path):
    begin = "<!-- %s: generated from interface.json by scripts/generate-protocol.py, do not edit -->" % name
    end = "<!-- end of %s -->" % name
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise DescriptionError("%s has no %r ... %r markers" % (os.path.basename(path), begin, end))
    return pattern.sub(lambda _: begin + "\n" + table + end, text, count=1)


def cell(text):
    return text.replace("|", "\\|")


def methods_table(protocol):
    rows = ["| method | what it does | mutates | result |", "|---|---|---|---|"]
    for method in protocol.methods:
        rows.append("| [`%s`](%s) | %s | %s | %s |" % (
            method.name, method.doc, cell(method.summary), "yes" if method.mutates else "",
            cell("`%s`" % summaries.result_summary(method, protocol))))
    return "\n".join(rows) + "\n"


def events_table(protocol):
    rows = ["| event | for | caused by |", "|---|---|---|"]
    for event in protocol.events:
        causes = [m.name for m in protocol.methods if event.name in m.events]
        rows.append("| [`%s`](%s) | %s | %s |" % (
            event.name, event.doc, "each subscription" if event.scope == "subscription" else "the connection",
            ", ".join("`%s`" % name for name in causes) if causes else "the daemon (see its section)"))
    return "\n".join(rows) + "\n"


def data_cell(error):
    fields = error.data_fields
    if not fields:
        return "–"
    required = ", ".join("`%s`" % name for name, _, needed in fields if needed)
    optional = ", ".join("`%s`" % name for name, _, needed in fields if not needed)
    return required + (" (+ %s)" % optional if optional else "")


def raised_by_cell(error, protocol):
    methods = ", ".join("`%s`" % m.name for m in protocol.methods_raising(error))
    parts = [part for part in (methods, error.raised_by) if part]
    return "; ".join(parts) if parts else "–"


def errors_table(protocol):
    rows = ["| name | code | meaning | raised by | `data` |", "|---|---|---|---|---|"]
    for error in protocol.errors:
        rows.append("| `%s`%s | %d | %s | %s | %s |" % (
            error.name, " ⏏" if error.closes_connection else "", error.code, cell(error.meaning),
            cell(raised_by_cell(error, protocol)), data_cell(error)))
    return "\n".join(rows) + "\n"


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def outputs(protocol):
    readme = read(README)
    readme = replace_between(readme, "methods table", methods_table(protocol), README)
    readme = replace_between(readme, "events table", events_table(protocol), README)
    errors = replace_between(read(ERRORS), "errors table", errors_table(protocol), ERRORS)
    return {README: readme, ERRORS: errors}
