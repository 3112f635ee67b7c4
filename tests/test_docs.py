"""docs/cleaner-rules.md: every "spec N.N" cited in the repository names one of its sections.

A citation is "spec" (or "Spec", "spec section") followed by section numbers: ``7.4``, ranges
``4-5`` / ``2.1-2.3``, lists ``3-5, 9, 11`` or ``0 and 12``, and optionally a rule of a section,
``7.3 rule B`` / ``2.3 rule 3`` / ``7.3 rules A and B``. A section resolves when the document has a
heading with that number; a rule resolves when that section's text names it ("Rule B").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES_DOC = ROOT / "docs" / "cleaner-rules.md"
CITING = ("kcompact_nb", "tests", "notebooks", "bench", "tools", "docs", "README.md")
TEXT_SUFFIXES = frozenset({".py", ".ipynb", ".md", ".java", ".cfg", ".toml", ".json", ".txt", ".yml", ".yaml"})
KAFKA_TAGS = frozenset({"4.4.0", "3.9.2"})
"""The releases the project is tested against; links to Kafka's source are pinned to one of them."""

_NUMBER = r"\d+(?:\.\d+)?"
_ITEM = rf"{_NUMBER}(?:\s*[-\u2013]\s*{_NUMBER})?"
_RULES = r"(?:\s+rules?\s+[A-Z0-9](?:\s*(?:-|,|and)\s*[A-Z0-9]\b)*)?"
_CITATION = re.compile(
    rf"\b[Ss]pec(?:\s+sections?)?\s+(?P<items>{_ITEM}{_RULES}"
    rf"(?:(?:\s*,\s*|\s+and\s+){_ITEM}(?![\w.]|\s+(?!rules?\b)[A-Za-z]){_RULES})*)"
)
_ITEM_WITH_RULES = re.compile(rf"(?P<item>{_ITEM})(?P<rules>{_RULES})")
_HEADING = re.compile(r"^#{2,4} (?P<number>\d+(?:\.\d+)?) (?P<title>.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Citation:
    """One section (and possibly one rule of it) named by a citation."""

    section: str
    rule: str | None
    text: str


def citations(text: str) -> list[Citation]:
    """Every (section, rule) the "spec ..." citations of ``text`` name, ranges and lists expanded."""
    found = []
    for match in _CITATION.finditer(text):
        for item in _ITEM_WITH_RULES.finditer(match.group("items")):
            rules = _rule_names(item.group("rules"))
            for section in _expand(item.group("item")):
                found.extend(Citation(section, rule, match.group(0)) for rule in rules)
    return found


def _expand(item: str) -> list[str]:
    """``4-5`` -> 4, 5; ``2.1-2.3`` -> 2.1, 2.2, 2.3; ``7.4`` -> 7.4."""
    ends = re.split(r"\s*[-\u2013]\s*", item)
    if len(ends) == 1:
        return ends
    first, last = ends
    if "." not in first and "." not in last:
        return [str(n) for n in range(int(first), int(last) + 1)]
    major, _, low = first.partition(".")
    last_major, _, high = last.partition(".")
    if major == last_major and low and high:
        return [f"{major}.{n}" for n in range(int(low), int(high) + 1)]
    return [first, last]


def _rule_names(rules: str) -> list[str | None]:
    """``rules A and B`` -> A, B; ``rules A-D`` -> A, B, C, D; nothing -> [None]."""
    names = re.findall(r"\b[A-Z0-9]\b", re.sub(r"^\s*rules?", "", rules))
    if not names:
        return [None]
    if re.search(r"[A-Z0-9]\s*-\s*[A-Z0-9]", rules) and len(names) == 2:
        low, high = names
        return [chr(c) for c in range(ord(low), ord(high) + 1)]
    return list(names)


def sections(doc: str) -> dict[str, str]:
    """Section number -> its text (heading to the next heading), for every numbered heading."""
    matches = list(_HEADING.finditer(doc))
    ends = [m.start() for m in matches[1:]] + [len(doc)]
    return {m.group("number"): doc[m.start() : end] for m, end in zip(matches, ends, strict=True)}


def unresolved(text: str, doc: str) -> list[str]:
    """The citations of ``text`` that name no section (or no rule of its section) of ``doc``."""
    by_number = sections(doc)
    problems = []
    for citation in citations(text):
        body = by_number.get(citation.section)
        if body is None:
            problems.append(f"{citation.text!r}: no section {citation.section}")
        elif citation.rule is not None and not re.search(rf"\brule {citation.rule}\b", body, re.IGNORECASE):
            problems.append(f"{citation.text!r}: section {citation.section} has no rule {citation.rule}")
    return problems


def citing_files() -> Iterator[Path]:
    for name in CITING:
        path = ROOT / name
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*")):
            if file.is_file() and file.suffix in TEXT_SUFFIXES and "__pycache__" not in file.parts:
                yield file


def repository_citations() -> dict[Path, list[tuple[int, str]]]:
    """file -> (line number, text) of every citation, including one wrapped over two lines."""
    found: dict[Path, list[tuple[int, str]]] = {}
    for file in citing_files():
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for match in _CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.setdefault(file, []).append((line, match.group(0)))
    return found


def rules_doc() -> str:
    return RULES_DOC.read_text(encoding="utf-8")


# The citations ---------------------------------------------------------------------------------------

SPEC = "spec"  # written apart so that the planted citations below are not citations of this file


def test_every_citation_in_the_repository_names_a_section_of_the_rules():
    doc = rules_doc()
    problems = [
        f"{file.relative_to(ROOT)}:{number}: {problem}"
        for file, found in repository_citations().items()
        for number, citation in found
        for problem in unresolved(citation, doc)
    ]
    assert not problems, (
        '"spec N.N" means section N.N of docs/cleaner-rules.md; these name none (add the section, or fix the '
        "citation):\n" + "\n".join(problems)
    )


def test_the_scan_reaches_the_code_the_tests_and_the_tools():
    """The check above cannot pass by finding nothing: citations are found where they are known to be."""
    files = {file.relative_to(ROOT).as_posix() for file in repository_citations()}
    assert "kcompact_nb/core/cleaner/_cleaner.py" in files
    assert "tests/core/cleaner/test_cleaner_pass.py" in files
    assert "tools/make_samples.py" in files
    assert "README.md" in files
    assert sum(len(found) for found in repository_citations().values()) >= 90


def test_a_planted_citation_of_a_missing_section_fails():
    doc = rules_doc()
    assert unresolved(f"as the cleaner does ({SPEC} 7.4)", doc) == []
    assert unresolved(f"as the cleaner does ({SPEC} 7.9)", doc) == [f"'{SPEC} 7.9': no section 7.9"]
    chapter = f"{SPEC.capitalize()} 17"
    assert unresolved(f'"""{chapter}: not a chapter."""', doc) == [f"'{chapter}': no section 17"]
    assert unresolved(f"({SPEC} 4-5, 9, 18)", doc) == [f"'{SPEC} 4-5, 9, 18': no section 18"]


def test_a_planted_citation_of_a_missing_rule_fails():
    doc = rules_doc()
    assert unresolved(f"{SPEC} 7.3 rule B and 15", doc) == []
    assert unresolved(f"{SPEC} 2.2, 2.3 rule 3", doc) == []
    assert unresolved(f"{SPEC} 7.3 rule E", doc) == [f"'{SPEC} 7.3 rule E': section 7.3 has no rule E"]
    assert unresolved(f"{SPEC} 2.3 rule 7", doc) == [f"'{SPEC} 2.3 rule 7': section 2.3 has no rule 7"]


def test_citation_forms_used_in_the_code_are_read_whole():
    def named(text: str) -> list[tuple[str, str | None]]:
        return [(c.section, c.rule) for c in citations(text)]

    assert named(f"({SPEC} 7.4)") == [("7.4", None)]
    assert named(f"{SPEC.capitalize()} 13.1: 80-byte batches") == [("13.1", None)]
    assert named(f"(``LogCleaner``; {SPEC} 3-5, 9, 11)") == [(s, None) for s in ("3", "4", "5", "9", "11")]
    assert named(f"({SPEC} 1, 2, 4.1, 9)") == [(s, None) for s in ("1", "2", "4.1", "9")]
    assert named(f"({SPEC} 2.1-2.3)") == [(s, None) for s in ("2.1", "2.2", "2.3")]
    assert named(f"({SPEC} 7.3-7.5, 15)") == [(s, None) for s in ("7.3", "7.4", "7.5", "15")]
    assert named(f"guarantees, {SPEC} 0 and 12)") == [("0", None), ("12", None)]
    assert named(f"({SPEC} 7.3 rules A and B);") == [("7.3", "A"), ("7.3", "B")]
    assert named(f"Rules A-D of {SPEC} 7.3 (``checkBatchRetention``)") == [("7.3", None)]
    assert named(f"(Kafka's {SPEC} section 15)") == [("15", None)]
    assert named(f"({SPEC} 6-7, Kafka 3.1+ delete-horizon rules)") == [("6", None), ("7", None)]
    assert named(f"({SPEC} 4.2, 3 segments later)") == [("4.2", None)]
    assert named("OffsetMapSpec(slots=3); kernelspec 3") == []


# The document itself ---------------------------------------------------------------------------------


def github_slug(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def test_section_numbers_are_unique_and_in_order():
    numbers = [m.group("number") for m in _HEADING.finditer(rules_doc())]
    assert len(numbers) == len(set(numbers))
    keys = [tuple(int(part) for part in n.split(".")) for n in numbers]
    assert keys == sorted(keys)


def test_the_contents_list_matches_the_headings():
    doc = rules_doc()
    block = doc[doc.index("<!-- contents:") : doc.index("<!-- end of contents -->")]
    listed = re.findall(r"^( *)- \[(.+?)\]\(#(.+?)\)$", block, re.MULTILINE)
    headings = [(m.group(0).split(" ")[0], f"{m.group('number')} {m.group('title')}") for m in _HEADING.finditer(doc)]
    assert [(title, anchor) for _, title, anchor in listed] == [(t, github_slug(t)) for _, t in headings]
    assert [len(indent) for indent, _, _ in listed] == [0 if level == "##" else 2 for level, _ in headings]


def test_links_inside_the_document_reach_a_heading():
    doc = rules_doc()
    anchors = {github_slug(m.group(0).lstrip("#")) for m in re.finditer(r"^#{1,4} .+$", doc, re.MULTILINE)}
    targets = set(re.findall(r"\]\(#([^)]+)\)", doc))
    assert targets - anchors == set()


def test_every_chapter_names_the_kafka_source_it_follows():
    doc = rules_doc()
    chapters: dict[str, str] = {}
    for number, body in sections(doc).items():
        chapter = number.partition(".")[0]
        chapters[chapter] = chapters.get(chapter, "") + body
    assert list(chapters) == [str(n) for n in range(17)]
    assert [number for number, body in chapters.items() if "Kafka source:" not in body] == []


def test_kafka_source_links_are_defined_and_pinned_to_a_tested_release():
    doc = rules_doc()
    defined = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", doc, re.MULTILINE))
    used = set(re.findall(r"\]\[([^\]]+)\]", doc))
    assert used - set(defined) == set()
    assert set(defined) - used == set()
    kafka_links = re.findall(r"https://github\.com/apache/kafka/blob/([^/]+)/(\S+?)[)\s]", doc + "\n")
    assert kafka_links
    assert {tag for tag, _ in kafka_links} <= KAFKA_TAGS
    assert all(path.endswith((".java", ".scala")) for _, path in kafka_links)


def test_project_paths_named_in_the_document_exist():
    """Paths the rules point to (modules, tests, notebooks, tools) must follow the code when it moves."""
    doc = rules_doc()
    paths = set(re.findall(r"`((?:kcompact_nb|tests|notebooks|tools|data)/[\w./-]+)`", doc))
    assert "kcompact_nb/core/cleaner/_cleaner.py" in paths
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []


# Relative links in the notebooks and documents -------------------------------------------------------

LINKING = ("README.md", "docs", "notebooks", "data/samples")
_LINK = re.compile(r"\[[^\]\n]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
_ABSOLUTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_CITED_DOCUMENT = re.compile(r"`([\w./-]+\.md)`")


def _prose(path: Path) -> str:
    """A document's text, or a notebook's markdown cells (its code and outputs are not prose)."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def linking_files() -> list[Path]:
    """The documents and notebooks, without the copies JupyterLab saves beside notebooks opened in place (``make lab``
    leaves ``notebooks/.ipynb_checkpoints``, which git ignores)."""
    found: list[Path] = []
    for name in LINKING:
        path = ROOT / name
        found += [path] if path.is_file() else sorted(path.rglob("*.md")) + sorted(path.rglob("*.ipynb"))
    return [path for path in found if ".ipynb_checkpoints" not in path.parts]


def _anchors(document: Path) -> set[str]:
    text = document.read_text(encoding="utf-8")
    return {github_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def dead_links(source: Path, text: str) -> list[str]:
    """The relative links of ``text`` (written in ``source``) that reach no file, or no heading of it."""
    problems = []
    for target in _LINK.findall(text):
        if _ABSOLUTE.match(target):
            continue
        location, _, anchor = target.partition("#")
        document = (source.parent / location).resolve() if location else source
        if not document.exists():
            problems.append(f"{target}: no file {location}")
        elif anchor and document.suffix == ".md" and anchor not in _anchors(document):
            problems.append(f"{target}: no heading #{anchor} in {location or source.name}")
    return problems


def uncited_documents(source: Path, text: str) -> list[str]:
    """Documents named in code spans (```scenario-format.md```) that are neither beside ``source`` nor in docs/."""
    return [
        name
        for name in _CITED_DOCUMENT.findall(text)
        if not any((base / name).exists() for base in (source.parent, ROOT, ROOT / "docs"))
    ]


def test_every_relative_link_in_the_notebooks_and_documents_resolves():
    problems = [
        f"{path.relative_to(ROOT)}: {problem}" for path in linking_files() for problem in dead_links(path, _prose(path))
    ]
    assert problems == []


def test_every_document_the_notebooks_cite_is_in_the_repository():
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert [f"{p.name}: {name}" for p in notebooks for name in uncited_documents(p, _prose(p))] == []


def test_the_link_scan_reaches_the_notebooks_and_finds_dead_links():
    notebook = ROOT / "notebooks" / "00-partition-model.ipynb"
    assert notebook in linking_files() and RULES_DOC in linking_files()
    assert "](../docs/cleaner-rules.md#131-worked-example)" in _prose(notebook)
    assert (
        dead_links(notebook, "[rules](../docs/cleaner-rules.md#131-worked-example), [web](https://kafka.apache.org)")
        == []
    )
    assert dead_links(notebook, "see [the rules](docs/cleaner-rules.md)") == [
        "docs/cleaner-rules.md: no file docs/cleaner-rules.md"
    ]
    assert dead_links(notebook, "[x](../docs/cleaner-rules.md#no-such-heading)") == [
        "../docs/cleaner-rules.md#no-such-heading: no heading #no-such-heading in ../docs/cleaner-rules.md"
    ]
    assert uncited_documents(notebook, "described in `scenario-format.md` and `cleaner-rules.md`") == []
    assert uncited_documents(notebook, "described in `missing-format.md`") == ["missing-format.md"]
