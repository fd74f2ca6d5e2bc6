"""ARCHITECTURE.md is the map of the source tree, and Package.swift the map of its modules: both
are held to the tree here, so neither drifts as files come and go.

- Every source file (SOURCE_ROOTS: the Swift and C targets, the fuzz driver, the client
  libraries, the viewer and the scripts) is named in ARCHITECTURE.md by its path from the
  repository root, in a code span.
- Every repository path ARCHITECTURE.md names in a code span exists, and every bare file name
  with a source suffix is the name of some file (a renamed or deleted file is caught).
- Every first-party module a Swift target imports is among the dependencies Package.swift (or
  fuzz/Package.swift) declares for that target: an undeclared import builds only while some
  other target happens to build the module first, and hides a layer crossing.

Needs no build and no daemon. When a file is added, name it in ARCHITECTURE.md (its module's
table, one line: path and role) and run
`cd system-tests/e2e && python3 -m unittest -v test_architecture`."""
import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ARCHITECTURE = "ARCHITECTURE.md"

# Where source files live, and which suffixes count as source there.
SWIFT_AND_C = (".swift", ".c", ".h")
SOURCE_ROOTS = (
    ("Sources", SWIFT_AND_C),
    ("Plugins", SWIFT_AND_C),
    ("fuzz/Sources", SWIFT_AND_C),
    ("clients/swift", (".swift",)),
    ("clients/c/src", (".c", ".h")),
    ("clients/c/include", (".h",)),
    ("clients/gtk/src", (".c", ".h")),
    ("clients/gtk/include", (".h",)),
    ("clients/python/layoutd", (".py",)),
    ("clients/js/src", (".js",)),
    ("web", (".html", ".css", ".js")),
    ("scripts", (".py", ".sh")),
)
# Bare file names (no directory) with one of these suffixes must be some file's name.
NAMED_SUFFIXES = (".swift", ".c", ".h", ".py", ".js", ".sh", ".css", ".html")
# What a path in a code span never contains: placeholders, globs, variables, spaces.
NOT_A_PATH = re.compile(r"[\s*<>{}$|]")
PACKAGES = ("Package.swift", "fuzz/Package.swift")


def source_files(root, roots=SOURCE_ROOTS):
    """Every source file under `roots`, as paths from `root` with forward slashes, sorted."""
    found = []
    for directory, suffixes in roots:
        top = os.path.join(root, directory)
        for parent, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__" and d != "node_modules")
            for name in files:
                if name.endswith(suffixes):
                    found.append(os.path.relpath(os.path.join(parent, name), root).replace(os.sep, "/"))
    return sorted(set(found))


def code_spans(text):
    """The contents of every inline code span (`...`) and every line of fenced blocks."""
    spans = []
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence:
            spans.extend(re.findall(r"`([^`\n]+)`", line))
    return spans


def named_paths(text):
    """Code spans that are a path with a directory part (`Sources/X/Y.swift`, `clients/c/`)."""
    paths = set()
    for span in code_spans(text):
        span = span.strip()
        if "/" not in span or NOT_A_PATH.search(span) or span.startswith(("/", "~", ".", "-")):
            continue
        if "//" in span or "://" in span:
            continue
        paths.add(span)
    return paths


def top_level_entries(root):
    return {name for name in os.listdir(root) if not name.startswith(".")}


def stale_paths(root, text):
    """Paths the text names that do not exist: repository paths (first component a top-level
    entry of the repository, or a last component with a suffix), and bare source file names
    that no file has."""
    tops = top_level_entries(root)
    stale = []
    for path in sorted(named_paths(text)):
        first, last = path.split("/")[0], path.rstrip("/").split("/")[-1]
        if first not in tops and "." not in last:
            continue  # not a repository path: `inline`/`offload`-like prose, an include form
        if not os.path.exists(os.path.join(root, path.rstrip("/"))):
            stale.append(path)
    basenames = set()
    for parent, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__")]
        basenames.update(files)
    for span in sorted(set(code_spans(text))):
        span = span.strip()
        if "/" in span or NOT_A_PATH.search(span) or not span.endswith(NAMED_SUFFIXES):
            continue
        if span not in basenames:
            stale.append(span)
    return stale


def unnamed_files(root, text):
    named = named_paths(text)
    return [path for path in source_files(root) if path not in named]


# MARK: Package.swift

TARGET_KINDS = ("target", "executableTarget", "testTarget", "systemLibrary", "binaryTarget", "plugin", "macro")


def strip_comments(source):
    """Package.swift without // comments (string literals in it never hold `//`)."""
    return "\n".join(re.sub(r"//.*", "", line) for line in source.splitlines())


def balanced(text, start):
    """The text inside the parenthesis opening at `start`, and the index after its close."""
    depth, index, in_string = 0, start, False
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:index], index + 1
        index += 1
    raise ValueError("unbalanced parentheses in Package.swift")


def bracketed(text, key):
    """The text of `key: [ ... ]` at the top level of a target's arguments, or None."""
    match = re.search(r"\b" + key + r"\s*:\s*\[", text)
    if not match:
        return None
    depth, index = 0, match.end() - 1
    while index < len(text):
        if text[index] == "[":
            depth += 1
        elif text[index] == "]":
            depth -= 1
            if depth == 0:
                return text[match.end():index]
        index += 1
    raise ValueError("unbalanced brackets in Package.swift")


def package_targets(package_path, package_dir):
    """Every target a Package.swift declares: {name: (kind, directory from package_dir's root,
    [dependency names])}. Dependencies are target or product names (`"X"`,
    `.target(name: "X")`, `.product(name: "X", ...)`, `.byName(name: "X")`)."""
    with open(package_path) as handle:
        source = strip_comments(handle.read())
    targets_start = re.search(r"\btargets\s*:\s*\[\s*\.", source[source.index("let package"):])
    if targets_start is None:
        raise ValueError(f"{package_path}: no targets list")
    body_start = source.index("let package") + targets_start.start()
    targets = {}
    pattern = re.compile(r"\.(" + "|".join(TARGET_KINDS) + r")\s*\(")
    index = body_start
    while True:
        match = pattern.search(source, index)
        if not match:
            break
        arguments, index = balanced(source, match.end() - 1)
        name = re.search(r'\bname\s*:\s*"([^"]+)"', arguments)
        if name is None:
            raise ValueError(f"{package_path}: a .{match.group(1)} without a name")
        dependencies = bracketed(arguments, "dependencies") or ""
        names = re.findall(r'(?:^|[\[,(]|\bname\s*:)\s*"([^"]+)"', dependencies)
        path = re.search(r'\bpath\s*:\s*"([^"]+)"', arguments)
        kind = match.group(1)
        if path:
            directory = path.group(1)
        else:
            directory = ("Tests/" if kind == "testTarget" else "Sources/") + name.group(1)
        directory = os.path.normpath(os.path.join(package_dir, directory)).replace(os.sep, "/")
        targets[name.group(1)] = (kind, directory, names)
    return targets


IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE)


def undeclared_imports(root, packages=PACKAGES):
    """Imports of first-party modules that the importing target does not declare, as sentences."""
    targets = {}
    for package in packages:
        path = os.path.join(root, package)
        if os.path.exists(path):
            targets.update(package_targets(path, os.path.dirname(package)))
    directories = {directory for _, directory, _ in targets.values()}
    failures = []
    for name, (kind, directory, dependencies) in sorted(targets.items()):
        if kind in ("systemLibrary", "binaryTarget"):
            continue
        top = os.path.join(root, directory)
        if not os.path.isdir(top):
            failures.append(f"target {name}: its directory {directory} does not exist")
            continue
        for parent, dirs, files in os.walk(top):
            here = os.path.relpath(parent, root).replace(os.sep, "/")
            # Another target's sources nested inside this one's directory are that target's.
            dirs[:] = sorted(d for d in dirs if f"{here}/{d}".lstrip("./") not in directories)
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                with open(os.path.join(parent, file), errors="replace") as handle:
                    imported = set(IMPORT.findall(handle.read()))
                for module in sorted(imported):
                    if module in targets and module != name and module not in dependencies:
                        failures.append(f"{here}/{file} (target {name}) imports {module}, which Package.swift does not declare among {name}'s dependencies")
    return failures, targets


class ArchitectureMapTests(unittest.TestCase):
    """ARCHITECTURE.md against the tree."""

    def setUp(self):
        with open(os.path.join(ROOT, ARCHITECTURE)) as handle:
            self.text = handle.read()

    def test_every_source_file_is_named(self):
        files = source_files(ROOT)
        self.assertGreater(len(files), 200, "the source roots hold fewer files than they did: is SOURCE_ROOTS right?")
        missing = unnamed_files(ROOT, self.text)
        self.assertEqual(
            missing, [],
            f"{len(missing)} source files are not named in ARCHITECTURE.md (name each by its path from the "
            "repository root, in a code span, with its role in its module's table):\n  " + "\n  ".join(missing))

    def test_every_named_path_exists(self):
        stale = stale_paths(ROOT, self.text)
        self.assertEqual(stale, [], "ARCHITECTURE.md names paths that do not exist:\n  " + "\n  ".join(stale))

    def test_the_checks_catch_what_they_are_for(self):
        """The two checks on a made-up tree: a file left out and a path that is gone."""
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "Sources", "A"))
            for name in ("One.swift", "Two.swift"):
                open(os.path.join(root, "Sources", "A", name), "w").close()
            text = "`Sources/A/One.swift`: one.\n`Sources/A/Gone.swift`: gone. `Three.swift`, `One.swift`\n"
            self.assertEqual(unnamed_files(root, text), ["Sources/A/Two.swift"])
            self.assertEqual(stale_paths(root, text), ["Sources/A/Gone.swift", "Three.swift"])


class PackageDependencyTests(unittest.TestCase):
    """Package.swift's declared dependencies against the imports of each target's sources."""

    def test_every_first_party_import_is_declared(self):
        failures, targets = undeclared_imports(ROOT)
        # The parser read the whole manifest: every target SwiftPM would build is here.
        with open(os.path.join(ROOT, "Package.swift")) as handle:
            declared = len(re.findall(r"^\s*\.(?:" + "|".join(TARGET_KINDS) + r")\(", strip_comments(handle.read()), re.MULTILINE))
        self.assertGreaterEqual(len(targets), declared)
        for name in ("LayoutServer", "LayoutEngine", "LayoutServerTests", "WaterfallPlugin", "layout-fuzz"):
            self.assertIn(name, targets)
        self.assertEqual(failures, [], "\n".join(failures))

    def test_the_check_catches_an_undeclared_import(self):
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "Package.swift"), "w") as handle:
                handle.write(
                    'let package = Package(\n  name: "p",\n  targets: [\n'
                    '    .target(name: "Low"),\n'
                    '    // .target(name: "Commented", dependencies: ["Low"]),\n'
                    '    .target(name: "Mid", dependencies: ["Low"]),\n'
                    '    .target(name: "High", dependencies: [.target(name: "Mid")], path: "Custom/High"),\n'
                    '    .testTarget(name: "HighTests", dependencies: ["High"]),\n  ]\n)\n')
            files = {
                "Sources/Low/L.swift": "import Glibc\n",
                "Sources/Mid/M.swift": "import Low\n",
                "Custom/High/H.swift": "import Mid\n@preconcurrency import struct Low.Thing\n",
                "Tests/HighTests/T.swift": "@testable import High\nimport Mid\n",
            }
            for path, content in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as handle:
                    handle.write(content)
            failures, targets = undeclared_imports(root, ("Package.swift",))
            self.assertEqual(sorted(targets), ["High", "HighTests", "Low", "Mid"])
            self.assertEqual(len(failures), 2, failures)
            self.assertIn("Custom/High/H.swift (target High) imports Low", failures[0])
            self.assertIn("Tests/HighTests/T.swift (target HighTests) imports Mid", failures[1])


if __name__ == "__main__":
    unittest.main()
