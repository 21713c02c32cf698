"""Plain, immutable core data (docs/design.md "Core data").

Lines are 1-based and columns 0-based, as editors and tree-sitter (rows + 1) show them.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain, groupby, repeat
from operator import itemgetter
from pathlib import Path

from core.safe_files import MAX_SOURCE_BYTES, read_text, why_unreadable

# The languages (names, titles, source suffixes, ...) are described in `core.languages`.

Edge = tuple[str, str]


@dataclass(frozen=True)
class Node:
    """A defined function-like thing with its TraceEval name and where it is in the source."""

    name: str
    kind: str  # module | function | method | constructor | lambda | arrow | anonymous | initializer
    file: str  # relative path inside the program folder, '/'-separated
    start_line: int
    start_col: int
    end_line: int
    end_col: int


class CallGraph:
    """Caller keys in their original order plus ordered, de-duplicated edges. Immutable.

    `keys` are the callers as listed in a `{caller: [callees]}` dict (every defined function
    in the ground truth, including ones with no callees); `edges` keep first-seen order.
    A graph made from that dict (`from_dict`) keeps its callee lists and makes the edge tuples only when
    `edges` is first read: an import stores millions of edges (`to_dict`, `edge_ends`) without making them.
    """

    __slots__ = ("_callees", "_edges", "keys")
    keys: tuple[str, ...]
    _edges: tuple[Edge, ...] | None  # None until made from `_callees`
    _callees: tuple[tuple[str, ...], ...] | None  # each key's callees, for a graph made by `from_dict`

    def __init__(self, keys: Iterable[str] = (), edges: Iterable[Edge] = ()):
        object.__setattr__(self, "keys", tuple(keys))
        object.__setattr__(self, "_edges", tuple(edges))
        object.__setattr__(self, "_callees", None)

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Iterable[str]]) -> CallGraph:
        graph = cls.__new__(cls)
        object.__setattr__(graph, "keys", tuple(mapping))
        object.__setattr__(graph, "_edges", None)
        object.__setattr__(graph, "_callees", tuple(map(tuple, mapping.values())))
        return graph

    @classmethod
    def from_edges(cls, edges: Iterable[Edge], keys: Iterable[str] = ()) -> CallGraph:
        ordered = dict.fromkeys(edges)
        all_keys = dict.fromkeys(keys)
        for caller, _ in ordered:
            all_keys.setdefault(caller, None)
        return cls(tuple(all_keys), tuple(ordered))

    @property
    def edges(self) -> tuple[Edge, ...]:
        edges = self._edges
        if edges is None:  # iterated in C, without a Python step per caller
            callers, callees = self.edge_ends()
            edges = tuple(dict.fromkeys(zip(callers, callees)))
            object.__setattr__(self, "_edges", edges)
        return edges

    def edge_ends(self) -> tuple[list[str], list[str]]:
        """The callers and the callees of the edges, as two lists in edge order; a graph made by `from_dict` lists
        an edge as often as its dict names it (no edge tuples are made)."""
        if self._edges is None and self._callees is not None:
            callees = self._callees
            return list(chain.from_iterable(map(repeat, self.keys, map(len, callees)))), \
                list(chain.from_iterable(callees))
        return list(map(itemgetter(0), self.edges)), list(map(itemgetter(1), self.edges))

    def to_dict(self) -> dict[str, list[str]]:
        """The TraceEval `{caller: [callees]}` form, keys in order (edge-only callers appended)."""
        if self._callees is not None:  # made by `from_dict`: that form again, each callee once per caller
            return dict(zip(self.keys, map(list, map(dict.fromkeys, self._callees))))
        out: dict[str, list[str]] = {key: [] for key in self.keys}
        for caller, edges in groupby(self.edges, itemgetter(0)):  # a caller's edges come together, mostly
            out.setdefault(caller, []).extend(map(itemgetter(1), edges))
        return out

    @property
    def edge_set(self) -> frozenset[Edge]:
        return frozenset(self.edges)

    @property
    def nodes(self) -> tuple[str, ...]:
        """Every name: keys first, then callees and callers that are not keys, in first-seen order."""
        names = dict.fromkeys(self.keys)
        for caller, callee in self.edges:
            names.setdefault(caller, None)
            names.setdefault(callee, None)
        return tuple(names)

    def __len__(self) -> int:
        return len(self.edges)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CallGraph):
            return NotImplemented
        return self.keys == other.keys and self.edges == other.edges

    def __hash__(self) -> int:
        return hash((self.keys, self.edges))

    def __repr__(self) -> str:
        return f"CallGraph(keys={self.keys!r}, edges={self.edges!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"CallGraph is immutable: cannot set {name!r}")

    def __reduce__(self):
        return CallGraph, (self.keys, self.edges)


@dataclass(frozen=True)
class Provenance:
    """Where a program came from, as its README's `Source:`, `Original file:` and `Licence:` lines say.

    `licence` is the line's text as written ("" when there is none); the workspace index keeps only the URL and
    the original file, so a reader needing the licence reads the README again (`core.dataset.layout.read_provenance`).
    """

    source_url: str = ""
    original_file: str = ""
    licence: str = ""


@dataclass(frozen=True)
class Instance:
    """One benchmark program. `root` is its folder; `files` are relative, '/'-separated."""

    id: str
    language: str
    root: Path
    files: tuple[str, ...]
    entry_point: str
    ground_truth: CallGraph
    split: str = ""  # test | train | "" when no split file names it
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def key(self) -> str:
        """`language/id`: ids alone are not unique (the release has `cli_0003` in two languages)."""
        return instance_key(self.language, self.id)

    @property
    def repo(self) -> str:
        return repo_of(self.id)

    def read_source(self, relative: str) -> str:
        """The file's text with '\\n' line ends; an OSError when it cannot be read or is refused (a link out
        of the program folder, not a regular file, over MAX_SOURCE_BYTES, not UTF-8: see core.safe_files)."""
        text = read_text(self.root / relative, MAX_SOURCE_BYTES, root=self.root)
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def read_sources(self) -> tuple[dict[str, str], dict[str, str]]:
        """(readable files -> text with '\\n' line ends, unreadable files -> why)."""
        sources, unreadable = {}, {}
        for relative in self.files:
            try:
                sources[relative] = self.read_source(relative)
            except OSError as error:
                unreadable[relative] = why_unreadable(error)
        return sources, unreadable


def instance_key(language: str, program_id: str) -> str:
    return f"{language}/{program_id}"


def repo_of(program_id: str) -> str:
    """`Activiti_0001` -> `Activiti`: the repository name is the part before the last underscore."""
    head, sep, _ = program_id.rpartition("_")
    return head if sep else program_id


@dataclass(frozen=True)
class Prediction:
    """One model's answer for one instance. `graph` is None only when there was no answer at all."""

    instance_id: str
    model: str
    language: str
    graph: CallGraph
    raw_response: str | None = None
    parse_problems: tuple[str, ...] = ()
    prompt_hash: str = ""
    prompt_wording: str = ""  # `PromptWording.tag` of the prompt: "release:<sha256>", "studio", "" unknown
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    cost_usd: float | None = None
    source: str = ""  # the file it was imported from
    # The graph was given beside `raw_response` (a released record's stored prediction) and the response is not
    # parsed yet: its problems, and any difference from the graph, are added when the workspace reads it back.
    raw_unchecked: bool = False
    reasoning: str | None = None  # the model's thinking, kept beside the answer (None: none sent or not known)
    reasoning_tokens: int | None = None  # how many of `tokens_out` were thinking (None: not reported)

    @property
    def key(self) -> str:
        return instance_key(self.language, self.instance_id)
