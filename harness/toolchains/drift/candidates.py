"""The candidate spellings of the drift detector: the tokens worth trying per family, the tokens ptxas ignores
everywhere, and each seed grown by one token or one swap."""
import itertools

from .ptxas import assemble
from .spelling import spell

# the extra operand tried where ptxas answers "Arguments mismatch": one register of each width, and a vector
_EXTRA_OPERANDS = ("%x32", "%x64", "%h0", "{%x32}")


def _refused(errors, control=()):
    """ptxas refuses the one qualifier a probe adds to a seed: an error the seed alone (control) does not draw that
    says the modifier is unknown, illegal (not for an arch: that one exists elsewhere), or not of this instruction."""
    for e in errors:
        if e in control:
            continue
        if ("Unknown modifier" in e or ("Illegal" in e and "for arch" not in e)
                or "Unexpected instruction types" in e or "not allowed for instruction" in e):
            return True
    return False


def family_tokens(model, family, pool, ptxas, arch, target, ptx, workdir):
    """The tokens worth trying on this family: its own vocabulary, and every other pool token that ptxas does not
    refuse on the family's first seed at the end or at the front, or, failing both, takes with no error at the end
    with one extra operand (ptxas calls a qualifier whose operand is missing "Illegal" too). The extra-operand
    probes go in a second module, only for the tokens the first neither kept nor, on a seed with operands, called
    an unknown modifier at both places: most of the pool (the ptxas binary's strings), and with ptxas 13.5 the same
    tokens are kept as with every probe in one module. On a seed without operands (cp.async.bulk.commit_group)
    ptxas 13.5 parses `.mbarrier` with an operand as something else than without: every token is probed there."""
    opcode, quals, ops = model.families[family]["seeds"][0]
    own = {t for (_, qs) in model.families[family]["spellings"] for t in qs}
    others = [t for t in pool if t not in own and t not in quals]
    seed = spell(opcode, quals, ops)

    def probe(lines):
        """{token: [its probes' errors less the seed's own]}, and the tokens a probe of which ptxas killed"""
        errs = assemble(ptxas, arch, target, ptx, [ln for _, ln in lines] + [seed], workdir)
        control = set(errs.get(len(lines), ()))   # the seed alone
        out = {}
        for i, (t, _) in enumerate(lines):
            out.setdefault(t, []).append([x for x in errs.get(i, ()) if x not in control])
        return out

    kept, unknown = set(), set()
    plain = probe([(t, spell(opcode, q, ops)) for t in others for q in (quals + (t,), (t,) + quals)])
    for t, probes in plain.items():
        if any(not any(x.startswith("fatal:") for x in e) and not _refused(e) for e in probes):
            kept.add(t)
        elif ops and all(any(x.startswith(f"Unknown modifier '{t}'") for x in e) for e in probes):
            unknown.add(t)
    rest = [t for t in others if t not in kept and t not in unknown]
    if rest:
        # a line with the extra operand must draw no error at all; where the seed has no operand the extra one
        # adds no comma, and the line is judged as a plain probe (not refused), as the detector always has
        extra = probe([(t, spell(opcode, quals + (t,), ops + [x])) for t in rest for x in _EXTRA_OPERANDS])
        as_plain = not ops
        kept |= {t for t, probes in extra.items()
                 if any(not any(x.startswith("fatal:") for x in e) and (not _refused(e) if as_plain else not e)
                        for e in probes)}
    return sorted(own) + sorted(kept)


CONTROL = "cp.async.bulk.commit_group"   # an instruction without qualifiers: a token it takes, ptxas ignores


def inert_tokens(pool, ptxas, arch, target, ptx, workdir):
    """The tokens ptxas takes even on cp.async.bulk.commit_group, which has no qualifier: it ignores them wherever
    they are written. A spelling that differs from the model's only by such tokens is `ignored_by_ptxas` (a
    leniency of the toolchain, reported per token, not a qualifier the model lacks)."""
    errs = assemble(ptxas, arch, target, ptx, [f"{CONTROL}{t};" for t in pool], workdir)
    return {t for i, t in enumerate(pool) if not errs.get(i)}


def parsable_pool(pool, model, ptxas, arch, target, ptx, workdir):
    """The pool without the tokens ptxas cannot parse as a qualifier at all (directive names and the like), found
    once on the first family's first seed."""
    family = next(f for f in model.families if model.families[f]["seeds"])
    opcode, quals, ops = model.families[family]["seeds"][0]
    errs = assemble(ptxas, arch, target, ptx, [spell(opcode, quals + (t,), ops) for t in pool], workdir)
    return [t for i, t in enumerate(pool) if not any(x.startswith("fatal:") for x in errs.get(i, ()))]


def candidates(model, family, tokens):
    """(opcode, quals, operands) per candidate: each token at every position of every seed and in place of each of
    its qualifiers, and every pair of a seed's qualifiers swapped; deduplicated, in a stable order."""
    out = {}
    for opcode, quals, ops in model.families[family]["seeds"]:
        out.setdefault((opcode, quals), ops)     # the seed itself: accepted and known, or the run says why not
        for t in tokens:
            if t in quals:
                continue
            for i in range(len(quals) + 1):
                q = quals[:i] + (t,) + quals[i:]
                out.setdefault((opcode, q), model.operands(family, opcode, q, ops))
            for i in range(len(quals)):           # a new value of an axis: in place of each qualifier
                q = quals[:i] + (t,) + quals[i + 1:]
                out.setdefault((opcode, q), model.operands(family, opcode, q, ops))
        for i, j in itertools.combinations(range(len(quals)), 2):
            q = list(quals)
            q[i], q[j] = q[j], q[i]
            q = tuple(q)
            out.setdefault((opcode, q), model.operands(family, opcode, q, ops))
    return [(o, q, ops) for (o, q), ops in out.items()]


def operand_variants(ops):
    """One extra operand of each width at every position."""
    for i in range(len(ops) + 1):
        for x in _EXTRA_OPERANDS:
            yield ops[:i] + [x] + ops[i:]
