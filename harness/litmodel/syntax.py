"""The litmus file format (harness/litmodel/README.md, "The litmus format"): a file holds one test or a family of
tests, one statement a line. parse_file / parse_text return [Test]; a malformed line raises LitmusSyntaxError naming
the file, the line and what is wrong (the CLI exits 3 with it)."""
import re
from dataclasses import dataclass, field

SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc")
SCOPES = ("cta", "cluster", "gpu", "sys")
SPACES = ("global", "shared")
CONDITION_KINDS = ("exists", "~exists", "forall")


class LitmusSyntaxError(Exception):
    def __init__(self, path, line, what):
        super().__init__(f"{path}:{line}: {what}")
        self.path, self.line, self.what = path, line, what


@dataclass
class Thread:
    name: str
    cta: int = 0
    cluster: int = 0
    gpu: int = 0


@dataclass
class Instr:
    """One instruction: op is the mnemonic without qualifiers the model reads (ld, st, atom, red, fence, bar,
    barrier_cluster, cp_async, commit, wait, bulk, reduce, tensor, mb_arrive, mb_expect, mb_wait); the rest are its
    operands, each None where the instruction has none."""
    op: str
    line: int
    text: str
    sem: str = "weak"
    scope: str = "sys"
    reg: str = None
    loc: str = None
    value: object = None          # int or register name
    rmw: str = None               # add | exch
    fence: str = None             # sc | acq_rel | proxy_async | proxy_tensormap
    group: str = None             # cp_async | bulk
    n: int = None                 # wait_group N, bar id, expect_tx bytes
    read_only: bool = False       # cp.async.bulk.wait_group.read
    dsts: tuple = ()
    src: str = None
    mbars: tuple = ()             # complete_tx targets (one per destination: multicast)
    bytes: int = 16
    completion: str = None        # bulk_group | mbar | None (cp.async: by its group)


@dataclass
class Test:
    name: str
    path: str
    line: int
    doc: str = ""
    threads: dict = field(default_factory=dict)      # name -> Thread
    locs: dict = field(default_factory=dict)         # name -> (space, cta)
    init: dict = field(default_factory=dict)         # loc -> int
    mbarriers: dict = field(default_factory=dict)    # name -> (cta, count)
    code: dict = field(default_factory=dict)         # thread -> [Instr]
    observe: list = field(default_factory=list)      # final memory values reported
    condition: tuple = None                          # (kind, ast, text)
    expects: dict = field(default_factory=dict)      # fact name -> (value, source)
    source: str = ""
    text: str = ""                                   # the test's lines as written (mutants.py edits them)

    def all_locs(self):
        seen = list(self.locs)
        for instrs in self.code.values():
            for i in instrs:
                for l in ((None if i.op.startswith("mb_") else i.loc), i.src, *i.dsts):
                    if l is not None and l not in seen:
                        seen.append(l)
        return seen


_INT = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _int(tok):
    return int(tok, 0) if _INT.match(tok) else None


def _qualifiers(mnemonic, base, err):
    """Splits the qualifiers after `base` into (sem, scope, rest)."""
    quals = mnemonic[len(base):].split(".")[1:] if mnemonic != base else []
    sem, scope, rest = None, None, []
    for q in quals:
        if q in SEMS:
            if sem:
                err(f"two memory orders in '{mnemonic}'")
            sem = q
        elif q in SCOPES:
            if scope:
                err(f"two scopes in '{mnemonic}'")
            scope = q
        elif q in SPACES or q in ("shared::cta", "shared::cluster"):
            pass   # the state space is the location's (loc); spelt for readability
        else:
            rest.append(q)
    return sem, scope, rest


def _value(tok, err):
    v = _int(tok)
    if v is not None:
        return v
    if _NAME.match(tok):
        return tok
    err(f"'{tok}' is neither an integer nor a register")


def _keyed(tokens, err):
    """key=value operands of the copies (mbar=, bytes=) apart from the positional ones."""
    pos, kv = [], {}
    for t in tokens:
        if "=" in t:
            k, v = t.split("=", 1)
            if k not in ("mbar", "bytes"):
                err(f"unknown operand '{k}=' (known: mbar=, bytes=)")
            kv[k] = v
        else:
            pos.append(t)
    return pos, kv


def parse_instr(text, line, err):
    # operands are separated by blanks, a comma after one is optional ("ld r1, x"); "d0,d1" (no blank) is a
    # destination list (multicast)
    toks = [t.rstrip(",") for t in text.split()]
    toks = [t for t in toks if t]
    if not toks:
        err("an empty instruction")
    m, ops = toks[0], toks[1:]
    I = lambda op, **kw: Instr(op=op, line=line, text=text.strip(), **kw)

    def need(k):
        if len(ops) != k:
            err(f"'{m}' takes {k} operand(s), got {len(ops)}")

    if m == "mov":
        need(2)
        v = _int(ops[1])
        if v is None:
            err("'mov' takes a register and an integer")
        return I("mov", reg=ops[0], value=v)
    if m == "ld" or m.startswith("ld."):
        sem, scope, rest = _qualifiers(m, "ld", err)
        if rest or sem in ("release", "acq_rel", "sc"):
            err(f"'{m}': a load is weak, relaxed or acquire")
        need(2)
        return I("ld", sem=sem or ("relaxed" if scope else "weak"), scope=scope or "sys", reg=ops[0], loc=ops[1])
    if m == "st" or m.startswith("st."):
        sem, scope, rest = _qualifiers(m, "st", err)
        if rest or sem in ("acquire", "acq_rel", "sc"):
            err(f"'{m}': a store is weak, relaxed or release")
        need(2)
        return I("st", sem=sem or ("relaxed" if scope else "weak"), scope=scope or "sys", loc=ops[0],
                 value=_value(ops[1], err))
    if m.startswith("atom.") or m.startswith("red."):
        base = m.split(".")[0]
        sem, scope, rest = _qualifiers(m, base, err)
        rmw = [q for q in rest if q in ("add", "sub", "exch")]
        if len(rmw) != 1 or len(rest) != 1 + sum(q in ("u32", "s32", "b32") for q in rest):
            err(f"'{m}': one operation of add, sub, exch")
        if sem in ("weak", "sc"):
            err(f"'{m}': an atomic is relaxed, acquire, release or acq_rel")
        if base == "atom":
            need(3)
            return I("atom", sem=sem or "relaxed", scope=scope or "gpu", reg=ops[0], loc=ops[1],
                     value=_value(ops[2], err), rmw=rmw[0])
        need(2)
        return I("atom", sem=sem or "relaxed", scope=scope or "gpu", loc=ops[0], value=_value(ops[1], err),
                 rmw=rmw[0])
    if m.startswith("fence."):
        kind = m[len("fence."):]
        if kind == "proxy.async" or kind.startswith("proxy.async."):
            return I("fence", fence="proxy_async")
        if kind.startswith("proxy.tensormap"):
            return I("fence", fence="proxy_tensormap")
        sem, scope, rest = _qualifiers(m, "fence", err)
        if rest or sem not in ("sc", "acq_rel"):
            err(f"'{m}': fence.sc, fence.acq_rel (with a scope), fence.proxy.async or fence.proxy.tensormap")
        need(0)
        return I("fence", fence=sem, sem=sem, scope=scope or "sys")
    if m in ("bar.sync", "barrier.sync", "bar.cta.sync", "barrier.cta.sync"):
        if len(ops) > 1:
            err(f"'{m}' takes a barrier id")
        n = _int(ops[0]) if ops else 0
        if n is None:
            err(f"'{m}': the barrier id is an integer")
        return I("bar", n=n)
    if m == "barrier.cluster":
        need(0)
        return I("barrier_cluster")
    if m == "cp.async":
        need(2)
        return I("cp_async", dsts=(ops[0],), src=ops[1], group="cp_async")
    if m in ("cp.async.commit_group", "cp.async.bulk.commit_group"):
        need(0)
        return I("commit", group="bulk" if ".bulk." in m else "cp_async")
    if m == "cp.async.wait_all":
        need(0)
        return I("wait", group="cp_async", n=0, value="all")
    if m in ("cp.async.wait_group", "cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read"):
        need(1)
        n = _int(ops[0])
        if n is None or n < 0:
            err(f"'{m}': N is a non-negative integer")
        return I("wait", group="bulk" if ".bulk." in m else "cp_async", n=n, read_only=m.endswith(".read"))
    if m in ("cp.async.bulk", "cp.reduce.async.bulk.add", "cp.async.bulk.tensor", "cp.async.bulk.multicast"):
        pos, kv = _keyed(ops, err)
        op = {"cp.async.bulk": "bulk", "cp.async.bulk.multicast": "bulk", "cp.reduce.async.bulk.add": "reduce",
              "cp.async.bulk.tensor": "tensor"}[m]
        completion = None
        if pos and pos[-1] == "bulk_group":
            completion = "bulk_group"
            pos = pos[:-1]
        if "mbar" in kv:
            if completion:
                err(f"'{m}': bulk_group and mbar= both given")
            completion = "mbar"
        if completion is None:
            err(f"'{m}': a completion: bulk_group or mbar=M")
        if len(pos) != 2:
            err(f"'{m}' takes DST SRC (DST a list d0,d1 for multicast) and its completion")
        dsts = tuple(pos[0].split(","))
        mbars = tuple(kv["mbar"].split(",")) if "mbar" in kv else ()
        if mbars and len(mbars) != len(dsts):
            err(f"'{m}': {len(dsts)} destination(s) but {len(mbars)} mbarrier(s)")
        if len(dsts) > 1 and completion != "mbar":
            err(f"'{m}': a multicast copy completes through mbarriers")
        nbytes = _int(kv.get("bytes", "16"))
        if nbytes is None or nbytes <= 0 or nbytes % 16:
            err(f"'{m}': bytes= is a positive multiple of 16 (the chapter: 'must be a multiple of 16 bytes')")
        return I(op, dsts=dsts, src=pos[1], mbars=mbars, bytes=nbytes, completion=completion, group="bulk")
    if m.startswith("mbarrier.arrive.expect_tx"):
        sem, scope, rest = _qualifiers(m, "mbarrier.arrive.expect_tx", err)
        need(2)
        n = _int(ops[1])
        if n is None or n < 0:
            err(f"'{m}': the byte count is a non-negative integer")
        return I("mb_arrive", sem=sem or "release", scope=scope or "cta", loc=ops[0], n=n)
    if m.startswith("mbarrier.expect_tx"):
        sem, scope, rest = _qualifiers(m, "mbarrier.expect_tx", err)
        need(2)
        n = _int(ops[1])
        if n is None or n < 0:
            err(f"'{m}': the byte count is a non-negative integer")
        return I("mb_expect", sem="relaxed", scope=scope or "cta", loc=ops[0], n=n)
    if m.startswith("mbarrier.arrive"):
        sem, scope, rest = _qualifiers(m, "mbarrier.arrive", err)
        if rest or sem not in (None, "release", "relaxed"):
            err(f"'{m}': mbarrier.arrive is .release (default) or .relaxed")
        need(1)
        return I("mb_arrive", sem=sem or "release", scope=scope or "cta", loc=ops[0], n=0)
    if m.startswith("mbarrier.try_wait") or m.startswith("mbarrier.test_wait"):
        base = "mbarrier.try_wait" if m.startswith("mbarrier.try_wait") else "mbarrier.test_wait"
        sem, scope, rest = _qualifiers(m, base, err)
        if [r for r in rest if r != "parity"] or sem not in (None, "acquire", "relaxed"):
            err(f"'{m}': mbarrier.try_wait is .acquire (default) or .relaxed")
        need(1)
        return I("mb_wait", sem=sem or "acquire", scope=scope or "cta", loc=ops[0])
    err(f"unknown instruction '{m}'")


# --- conditions: herd-like: exists|~exists|forall ( T:r == 1 /\ x != 2 \/ ~(...) )
_COND_TOK = re.compile(r"\s*(/\\|\\/|==|!=|=|~|\(|\)|[A-Za-z_][A-Za-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|-?\d+|0x[0-9a-fA-F]+)")


def parse_condition(text, err):
    pos, toks = 0, []
    text = text.strip()
    while pos < len(text):
        mt = _COND_TOK.match(text, pos)
        if not mt or mt.end() == pos:
            err(f"condition: cannot read '{text[pos:pos + 12]}'")
        toks.append(mt.group(1))
        pos = mt.end()
    i = [0]

    def peek():
        return toks[i[0]] if i[0] < len(toks) else None

    def take(expected=None):
        t = peek()
        if t is None or (expected and t != expected):
            err(f"condition: expected {expected or 'more'}, found {t or 'the end'}")
        i[0] += 1
        return t

    def disj():
        left = conj()
        while peek() == "\\/":
            take()
            left = ("or", left, conj())
        return left

    def conj():
        left = unary()
        while peek() == "/\\":
            take()
            left = ("and", left, unary())
        return left

    def unary():
        if peek() == "~":
            take()
            return ("not", unary())
        if peek() == "(":
            take()
            e = disj()
            take(")")
            return e
        lhs = take()
        if not (_NAME.match(lhs) or ":" in lhs):
            err(f"condition: '{lhs}' is not a register (T:r) or a location")
        op = take()
        if op not in ("==", "=", "!="):
            err(f"condition: '{op}' is not ==, = or !=")
        rhs = _int(take())
        if rhs is None:
            err("condition: the right side is an integer")
        return ("cmp", lhs, "!=" if op == "!=" else "==", rhs)

    e = disj()
    if peek() is not None:
        err(f"condition: '{peek()}' after the end")
    return e


def _kv(tokens, allowed, err):
    out = {}
    for t in tokens:
        if "=" not in t:
            err(f"'{t}': expected key=value ({', '.join(allowed)})")
        k, v = t.split("=", 1)
        if k not in allowed:
            err(f"unknown key '{k}' (known: {', '.join(allowed)})")
        out[k] = v
    return out


def parse_text(text, path="<text>"):
    tests, cur = [], None
    lines = text.split("\n")
    for no, raw in enumerate(lines, 1):
        def err(what, no=no):
            raise LitmusSyntaxError(path, no, what)
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        head, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if head == "test":
            if not _NAME.match(rest.replace("-", "_").replace("+", "_").replace(".", "_")):
                err(f"test name '{rest}': letters, digits, _ - + .")
            if any(t.name == rest for t in tests):
                err(f"test '{rest}' twice in the file")
            cur = Test(name=rest, path=path, line=no)
            tests.append(cur)
            continue
        if cur is None:
            err("a statement before the first 'test NAME'")
        if head == "doc":
            cur.doc = (cur.doc + " " + rest).strip()
        elif head == "source":
            cur.source = rest
        elif head == "thread":
            toks = rest.split()
            if not toks or not _NAME.match(toks[0]):
                err("thread NAME [cta=N] [cluster=N] [gpu=N]")
            if toks[0] in cur.threads:
                err(f"thread {toks[0]} declared twice")
            kv = _kv(toks[1:], ("cta", "cluster", "gpu"), err)
            try:
                cur.threads[toks[0]] = Thread(toks[0], **{k: int(v) for k, v in kv.items()})
            except ValueError:
                err("thread: cta, cluster and gpu are integers")
            cur.code[toks[0]] = []
        elif head == "loc":
            toks = rest.split()
            if len(toks) < 2 or toks[1] not in SPACES:
                err("loc NAME global|shared [cta=N]")
            kv = _kv(toks[2:], ("cta",), err)
            cur.locs[toks[0]] = (toks[1], int(kv.get("cta", 0)))
        elif head == "init":
            for t in rest.split():
                k, _, v = t.partition("=")
                if _int(v) is None or not _NAME.match(k):
                    err(f"init: '{t}' is not LOC=INT")
                cur.init[k] = _int(v)
        elif head == "mbarrier":
            toks = rest.split()
            if not toks:
                err("mbarrier NAME [cta=N] [count=N]")
            kv = _kv(toks[1:], ("cta", "count"), err)
            cnt = int(kv.get("count", 1))
            if cnt < 1:
                err("mbarrier: count is at least 1")
            cur.mbarriers[toks[0]] = (int(kv.get("cta", 0)), cnt)
        elif head == "observe":
            cur.observe += rest.split()
        elif head in CONDITION_KINDS:
            if cur.condition:
                err("a second condition")
            cur.condition = (head, parse_condition(rest, err), rest)
        elif head == "expect":
            toks = rest.split(None, 2)
            if len(toks) < 2 or toks[1] not in ("0", "1", "forbidden", "allowed", "undefined"):
                err("expect FACT VALUE [SOURCE] (VALUE 0, 1, forbidden, allowed or undefined)")
            cur.expects[toks[0]] = (toks[1], toks[2] if len(toks) > 2 else "")
        elif head.endswith(":"):
            th = head[:-1]
            if th not in cur.threads:
                err(f"thread '{th}' is not declared (thread {th} ...)")
            cur.code[th].append(parse_instr(rest, no, err))
        else:
            err(f"unknown statement '{head}' (test, doc, source, thread, loc, init, mbarrier, observe, exists, "
                f"~exists, forall, expect, or THREAD: instruction)")
    starts = [t.line for t in tests] + [len(lines) + 1]
    for t, end in zip(tests, starts[1:]):
        t.text = "\n".join(lines[t.line - 1:end - 1]).rstrip() + "\n"
    for t in tests:
        _check(t)
    if not tests:
        raise LitmusSyntaxError(path, 1, "no test (a file starts with 'test NAME')")
    return tests


def _check(t):
    def err(what, no=t.line):
        raise LitmusSyntaxError(t.path, no, f"test {t.name}: {what}")
    if not t.threads:
        err("no thread")
    for th, instrs in t.code.items():
        for i in instrs:
            for mb in ((i.loc,) if i.op.startswith("mb_") else i.mbars):
                if mb not in t.mbarriers:
                    err(f"mbarrier '{mb}' is not declared (mbarrier {mb} cta=N count=N)", i.line)
            for l in (i.dsts + ((i.loc,) if i.loc and not i.op.startswith("mb_") else ()) + ((i.src,) if i.src else ())):
                if l in t.mbarriers:
                    err(f"'{l}' is an mbarrier, not a memory location", i.line)
    known_regs = {f"{th}:{i.reg}" for th, ins in t.code.items() for i in ins if i.reg}
    locs = set(t.all_locs())

    def walk(e):
        if e[0] == "cmp":
            if ":" in e[1]:
                if e[1] not in known_regs:
                    err(f"condition names {e[1]}, which no instruction writes")
            elif e[1] not in locs:
                err(f"condition names location {e[1]}, which no instruction touches")
        else:
            for s in e[1:]:
                walk(s)
    if t.condition:
        walk(t.condition[1])
    for o in t.observe:
        if o not in locs:
            err(f"observe names location {o}, which no instruction touches")


def parse_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise LitmusSyntaxError(path, 1, f"not UTF-8 text ({e.reason})")
    return parse_text(text, path)
