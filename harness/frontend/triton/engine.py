"""The tier's engine for the Triton language (kind "triton"): spell a form as a Gluon kernel, compile a batch in a
child, find the instruction under test, and judge the `.version` / `.target` Triton wrote as claims."""
from ptxcts_gen import model, targets
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

    def spell(self, form):
        s = self.mapping.spell(form)
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
            self.model_forms = {f.id: f for f in model.all_forms()}
        f = self.model_forms.get(form_id)
        if f is None:
            return []
        out = list(model._requirement_violations(f, tobj, ptx))
        if not f.valid_at(ptx):
            out.append(f"valid from PTX ISA {f.valid_from}")
        return out
