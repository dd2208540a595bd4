"""The tier's engine for the Triton language (kind "triton"): spell a form as a Gluon kernel, compile a batch in a
child, find the instruction under test, and judge the `.version` / `.target` Triton wrote as claims."""
import sys

from ptxcts_gen import load_forms, model, targets
from ptxcts_gen.frontends import Spelling, Unexpressible

from . import backend as tb


class TritonEngine:
    load_path = "triton"
    # Triton refuses with an exception and the process lives on: cases expected to be refused are batched too (a
    # batch with a refusal is compiled again kernel by kernel)
    batch_invalid = True

    def __init__(self, fe):
        from ptxcts_gen.frontends import triton as mapping
        self.fe, self.mapping = fe, mapping
        tb.load(fe)
        tb.warm_up()
        self.by_entry, self.form_of = {}, {}
        self.model_forms = None
        self.lowering = tb.lowering()
        self.lowering_notes = lowering_notes(self.lowering, self.mapping.MEASURED_LOWERING, tb.version())
        for n in self.lowering_notes:
            sys.stderr.write(f"frontend: note: {n}\n")

    def spell(self, form):
        s = lowered_spelling(form, self.mapping.spell(form), self.mapping, self.lowering,
                             self.mapping.MEASURED_LOWERING, tb.version())
        if isinstance(s, Spelling):
            why = tb.missing_api(s.callee, s.args)   # an older Triton's Gluon (3.6) lacks some calls
            if why:
                return Unexpressible(why)
            self.by_entry[form.entry] = s
            self.form_of[form.entry] = form
        return s

    def verify(self, items):
        """Every kernel the mapping asks for renders to Python that compiles (a malformed template does not)."""
        for entry, s in items:
            src = tb.kernel(entry, s.callee, s.args)[0]
            compile(tb._PRELUDE + src, f"<triton kernel {entry}>", "exec")

    def build(self, target, ptx, entries):
        cc = self.fe.description["targets"][target]["cc"]
        return (cc, ptx, [(e, self.by_entry[e].callee, tuple(self.by_entry[e].args)) for e in entries])

    compile = staticmethod(tb.compile_job)

    def extract(self, text):
        return tb.extract(text, lambda e: self.mapping.under_test(self.form_of[e]) if e in self.form_of else ("",))

    def describe_call(self, s):
        return tb.describe_call(s)

    def claim_verdict(self, case, klass, msg, details, em, index, valid_at):
        """The module's `.version` and `.target` as claims: the ones asked for, and every instruction of this
        chapter in the kernel valid there by the model. A broken claim is a fail naming the model's rule (kept
        spec_divergence / beyond_chapter when a reviewed finding or the chapter's edge already classed it, with the
        rule in details.claim_violations)."""
        ins = em.instructions
        claims = getattr(ins, "claims", None)
        if claims is None:
            return klass, msg, details
        v, t = claims
        details["claims"] = {"version": v, "target": t}
        details["kernel_instructions"] = list(ins.all)
        problems = []
        if v != case.ptx:
            problems.append(f"asked for ptx_version {case.ptx}, Triton wrote `.version {v}`")
        if t != case.target:
            problems.append(f"asked for {case.target}, Triton wrote `.target {t}`")
        tobj = targets.BY_NAME.get(t)
        for i in {tb.shape(i): i for i in ins.all}.values():   # copies of one instruction judged once
            forms = index.parse_literal(i).forms or index.parse(i).forms
            if not forms or tobj is None or v is None:
                continue
            if any(valid_at(f, t, v) for f in forms):
                continue
            # the rules of the form it is that breaks the fewest (the case's own form when it is one of them)
            rules = min((self._violations(f, tobj, v) for f in forms if f == case.form or case.form not in forms),
                        key=len)
            problems.append(f"`{i}` is not valid at its claims `.target {t}` / `.version {v}`: model rule(s) "
                            f"{', '.join(rules) or 'form not valid there'}")
        if not problems:
            return klass, msg, details
        details["claim_violations"] = problems
        if klass in ("spec_divergence", "beyond_chapter"):
            return klass, msg, details
        text = "; ".join(problems)
        if klass == "fail":
            return "fail", f"{msg}; claims: {text}", details
        return "fail", f"Triton's claims are broken: {text}", details

    def _violations(self, form_id, tobj, ptx):
        if self.model_forms is None:
            self.model_forms = {f.id: f for f in load_forms()}
        f = self.model_forms.get(form_id)
        if f is None:
            return []
        out = list(model._requirement_violations(f, tobj, ptx))
        if not f.valid_at(ptx):
            out.append(f"valid from PTX ISA {f.valid_from}")
        return out


class _WithQuals:
    """A form with other qualifiers (the spelling asked of the mapping); everything else the form's."""

    def __init__(self, form, quals):
        self._form, self.quals = form, quals

    def __getattr__(self, name):
        return getattr(self._form, name)


def lowering_notes(low, measured, version):
    """One line per lowering fact where the loaded Triton differs from the one the mapping was measured on."""
    out = []
    if low["tma_load_space"] and low["tma_load_space"] != measured["tma_load_space"]:
        out.append(f"Triton {version} writes a TMA load without multicast into .{low['tma_load_space']} (measured: "
                   f"`{low['tma_load_space_instr']}`), Triton {measured['triton']} into .{measured['tma_load_space']}: "
                   f"those forms are spelled as Triton {version} writes them")
    if low["cp_async_ca16"] and low["cp_async_ca16"] != measured["cp_async_ca16"]:
        out.append(f"Triton {version} writes cp.async.{low['cp_async_ca16']} for a 16-byte copy asked "
                   f"cache_modifier='.ca' (measured: `{low['cp_async_ca16_instr']}`), Triton {measured['triton']} "
                   f".{measured['cp_async_ca16']}: the 16-byte .ca forms are not written by this Triton")
    return out


def lowered_spelling(form, spelled, mapping, low, measured, version):
    """The spelling of a form: the mapping's (spelled), unless the loaded Triton lowers its instruction otherwise than
    the Triton the mapping was measured on (a lowering() fact that differs from mapping.MEASURED_LOWERING):
    * TMA load without multicast: the call the mapping spells for its measured destination writes this Triton's
      (Triton 3.6.0: .shared::cluster): the form with that destination is spelled with it, the other is not written;
    * 16-byte cp.async asked `.ca`: written with another cache operator (3.6.0: .cg): not written.
    A form the mapping cannot express for another reason keeps that reason."""
    q = form.quals
    space = low.get("tma_load_space")
    if (form.family == "cp.async.bulk.tensor" and q.get("src") == "global" and not q.get("multicast")
            and q.get("load_mode") != "tile::gather4" and space and space != measured["tma_load_space"]):
        if q["dst"] == space:   # the mapping's spelling of the form with its measured destination: the same call
            return mapping.spell(_WithQuals(form, dict(q, dst=measured["tma_load_space"])))
        if isinstance(spelled, Spelling):
            return Unexpressible(f"Triton {version} writes a TMA load without multicast into .{space} (measured: "
                                 f"`{low['tma_load_space_instr']}`): a .{q['dst']} destination without "
                                 ".multicast::cluster is not written")
    op = low.get("cp_async_ca16")
    if (form.family == "cp.async" and q.get("cop") == "ca" and q.get("cp_size") == 16 and op
            and op != measured["cp_async_ca16"] and isinstance(spelled, Spelling)):
        return Unexpressible(f"Triton {version} writes cp.async.{op} for a 16-byte copy asked cache_modifier='.ca' "
                             f"(measured: `{low['cp_async_ca16_instr']}`): the cache operator follows the copy's "
                             "width, not the argument")
    return spelled
