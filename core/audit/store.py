"""Audits in the workspace: definitions, sampled items, verdicts (with undo), adjudications and the
answers of baseline annotators. Every call that gives or changes something commits before it returns,
so killing the app loses nothing already given. Rows are only ever added: the newest row for an
edge and annotator is its state, which is what makes merging workspaces a plain union.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from core.audit.audits import (
    BASELINE_AUDIT,
    Adjudication,
    AnnotatorAnswer,
    Audit,
    AuditItem,
    EdgeRef,
    check_person_name,
)
from core.dataset.workspace import Workspace
from core.errors import AuditError
from core.verdicts import CLEARED, Verdict, now_iso, now_precise

VERDICT_FIELDS = ("instance_key", "caller", "callee", "auditor", "label", "note", "created_at", "audit")
ITEM_FIELDS = ("audit", "position", "instance_key", "instance_id", "language", "repo", "caller", "callee",
               "edge_class", "stratum", "stratum_size")
NEWEST_FIRST = "created_at desc, id desc"


class AuditStore:
    """An audit's sample, verdicts, adjudications and baseline answers in a workspace; every change is committed at
    once."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.db = ws.db

    # -- audits and their items ---------------------------------------------------------------
    def create(self, audit: Audit, items: Sequence[AuditItem]) -> Audit:
        """Store a new audit with its sample (one commit); AuditError when the name is taken."""
        if self.find(audit.name) is not None:
            raise AuditError(f"an audit named {audit.name!r} already exists in {self.ws.path.name}")
        for annotator in audit.annotators:
            check_person_name(annotator)
        with self.db.atomic():
            self.db.table("audits").insert(_audit_row(audit))
            self.db.table("audit_items").insert_all(({f: getattr(i, f) for f in ITEM_FIELDS} for i in items),
                                                   batch_size=500)
        return audit

    def find(self, name: str) -> Audit | None:
        rows = list(self.db.query("select * from audits where name = ?", [name]))
        return audit_from_row(rows[0]) if rows else None

    def get(self, name: str) -> Audit:
        audit = self.find(name)
        if audit is None:
            known = ", ".join(a.name for a in self.audits()) or "none yet"
            raise AuditError(f"no audit named {name!r} in {self.ws.path.name} (audits: {known})")
        return audit

    def audits(self) -> list[Audit]:
        return [audit_from_row(r) for r in self.db.query("select * from audits order by created_at, name")]

    def items(self, name: str) -> list[AuditItem]:
        rows = self.db.query("select * from audit_items where audit = ? order by position", [name])
        return [AuditItem(**{f: r[f] for f in ITEM_FIELDS}) for r in rows]

    def add_annotator(self, name: str, annotator: str) -> Audit:
        """Register an annotator on an audit (annotators may also join by simply giving verdicts)."""
        audit = self.get(name)
        check_person_name(annotator)
        if annotator not in audit.annotators:
            annotators = (*audit.annotators, annotator)
            self.db.table("audits").update(name, {"annotators": json.dumps(annotators)})
            audit = self.get(name)
        return audit

    def annotators(self, name: str) -> tuple[str, ...]:
        """The registered annotators and everyone who gave a verdict or an answer, registered first."""
        audit = self.get(name)
        given = [r[0] for r in self.db.execute(
            "select auditor from verdicts where audit = ? union select annotator from annotator_answers "
            "where audit = ? order by 1", [name, name])]
        return tuple(dict.fromkeys([*audit.annotators, *given]))

    def progress(self, name: str) -> dict[str, int]:
        """annotator -> items they have done: edges with a current verdict, or questions answered."""
        audit = self.get(name)
        if audit.kind == BASELINE_AUDIT:
            return {annotator: len(self.answers(name, annotator)) for annotator in self.annotators(name)}
        done = dict.fromkeys(self.annotators(name), 0)
        for annotator, _ref in self.current_verdicts(name):
            done[annotator] += 1
        return done

    # -- verdicts ---------------------------------------------------------------------------------
    def give_verdict(self, audit: str, ref: EdgeRef, annotator: str, label: str, note: str = "") -> Verdict:
        """Record an annotator's verdict (or a changed note) on one edge; committed at once."""
        check_person_name(annotator)
        verdict = Verdict(ref.instance_key, ref.caller, ref.callee, annotator, label, note, now_precise(), audit)
        self._insert(verdict, "verdict")
        return verdict

    def undo(self, audit: str, annotator: str) -> Verdict | None:
        """Take back the annotator's newest verdict (by time, so merged rows fall in place) not yet undone: the
        edge returns to the label (and note) it had before, or to no verdict. Returns the restored state, None
        when there is nothing to undo."""
        undone = {r[0] for r in self.db.execute(
            "select undoes from verdicts where audit = ? and auditor = ? and action = 'undo'", [audit, annotator])}
        rows = self.db.query("select * from verdicts where audit = ? and auditor = ? and action = 'verdict' "
                             f"order by {NEWEST_FIRST}", [audit, annotator])
        target = next((r for r in rows if r["id"] not in undone), None)
        if target is None:
            return None
        before = list(self.db.query(
            "select * from verdicts where audit = ? and auditor = ? and instance_key = ? and caller = ? and "
            f"callee = ? and (created_at, id) < (?, ?) order by {NEWEST_FIRST} limit 1",
            [audit, annotator, target["instance_key"], target["caller"], target["callee"], target["created_at"],
             target["id"]]))
        label, note = (before[0]["label"], before[0]["note"]) if before else (CLEARED, "")
        restored = Verdict(target["instance_key"], target["caller"], target["callee"], annotator, label, note,
                           now_precise(), audit)
        self._insert(restored, "undo", undoes=target["id"])
        return restored

    def history(self, audit: str, annotator: str | None = None) -> list[Verdict]:
        """Every verdict row of an audit (of one annotator when given), oldest first."""
        where, params = _audit_where(audit, annotator)
        rows = self.db.query(f"select * from verdicts {where} order by created_at, id", params)
        return [verdict_from_row(r) for r in rows]

    def current_verdicts(self, audit: str, annotator: str | None = None) -> dict[tuple[str, EdgeRef], Verdict]:
        """(annotator, edge) -> the annotator's current verdict; withdrawn verdicts are left out."""
        current: dict[tuple[str, EdgeRef], Verdict] = {}
        for verdict in self.history(audit, annotator):
            current[(verdict.auditor, EdgeRef(verdict.instance_key, verdict.caller, verdict.callee))] = verdict
        return {key: v for key, v in current.items() if not v.cleared}

    def labels(self, audit: str) -> dict[EdgeRef, dict[str, str]]:
        """edge -> {annotator: current label}, for agreement and final verdicts."""
        labels: dict[EdgeRef, dict[str, str]] = {}
        for (annotator, ref), verdict in self.current_verdicts(audit).items():
            labels.setdefault(ref, {})[annotator] = verdict.label
        return labels

    def _insert(self, verdict: Verdict, action: str, undoes: int | None = None) -> None:
        self.db.table("verdicts").insert({**{f: getattr(verdict, f) for f in VERDICT_FIELDS}, "action": action,
                                         "undoes": undoes})

    # -- adjudications ------------------------------------------------------------------------------
    def adjudicate(self, audit: str, ref: EdgeRef, label: str, adjudicator: str, reason: str = "") -> Adjudication:
        check_person_name(adjudicator, "adjudicator")
        adjudication = Adjudication(audit, ref, label, adjudicator, reason, now_precise())
        self.db.table("adjudications").insert({"audit": audit, **ref._asdict(), "label": label,
                                               "adjudicator": adjudicator, "reason": reason,
                                               "created_at": adjudication.created_at})
        return adjudication

    def adjudications(self, audit: str) -> dict[EdgeRef, Adjudication]:
        """The newest adjudication of each edge."""
        rows = self.db.query(f"select * from adjudications where audit = ? order by {NEWEST_FIRST}", [audit])
        newest: dict[EdgeRef, Adjudication] = {}
        for r in rows:
            ref = EdgeRef(r["instance_key"], r["caller"], r["callee"])
            newest.setdefault(ref, Adjudication(audit, ref, r["label"], r["adjudicator"], r["reason"],
                                                r["created_at"]))
        return newest

    # -- baseline answers ------------------------------------------------------------------------
    def store_answer(self, audit: str, annotator: str, instance_key: str, caller: str,
                     callees: Iterable[str]) -> AnnotatorAnswer:
        """Record a human's answer to one question (committed at once; the newest answer counts)."""
        check_person_name(annotator)
        answer = AnnotatorAnswer(audit, annotator, instance_key, caller, tuple(dict.fromkeys(callees)),
                                 now_precise())
        self.db.table("annotator_answers").insert({"audit": audit, "annotator": annotator, "instance_key": instance_key,
                                                  "caller": caller, "callees": json.dumps(answer.callees),
                                                  "created_at": answer.created_at})
        return answer

    def answers(self, audit: str, annotator: str) -> dict[tuple[str, str], AnnotatorAnswer]:
        """(instance_key, caller) -> the annotator's newest answer."""
        rows = self.db.query(f"select * from annotator_answers where audit = ? and annotator = ? "
                             f"order by {NEWEST_FIRST}", [audit, annotator])
        newest: dict[tuple[str, str], AnnotatorAnswer] = {}
        for r in rows:
            newest.setdefault((r["instance_key"], r["caller"]), AnnotatorAnswer(
                audit, annotator, r["instance_key"], r["caller"], tuple(json.loads(r["callees"])), r["created_at"]))
        return newest


def _audit_where(audit: str, annotator: str | None) -> tuple[str, list]:
    if annotator is None:
        return "where audit = ?", [audit]
    return "where audit = ? and auditor = ?", [audit, annotator]


def verdict_from_row(r: dict) -> Verdict:
    return Verdict(*(r[f] for f in VERDICT_FIELDS))


def _audit_row(audit: Audit) -> dict:
    return {"name": audit.name, "kind": audit.kind, "population": audit.population, "model": audit.model,
            "seed": audit.seed, "size": audit.size, "requested_size": audit.requested_size, "margin": audit.margin,
            "confidence": audit.confidence, "strata": json.dumps(audit.strata), "split": audit.split,
            "languages": json.dumps(audit.languages), "modes": json.dumps(audit.modes),
            "population_size": audit.population_size, "annotators": json.dumps(audit.annotators),
            "fingerprint": audit.fingerprint, "created_at": audit.created_at or now_iso(), "blind": int(audit.blind)}


def audit_from_row(r: dict) -> Audit:
    lists = {key: tuple(json.loads(r[key] or "[]")) for key in ("strata", "languages", "modes", "annotators")}
    return Audit(r["name"], r["kind"], r["population"], r["model"], r["seed"], r["size"], r["requested_size"],
                 r["margin"], r["confidence"], lists["strata"], r["split"], lists["languages"], lists["modes"],
                 r["population_size"], lists["annotators"], r["fingerprint"], r["created_at"], bool(r.get("blind")))
