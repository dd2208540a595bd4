#include "batch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>

#include "device_quirks.hpp"
#include "exec.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

struct Slot {
  int n = 0;                 // slot number (log file name)
  pid_t pid = -1;
  int to = -1, from = -1;    // worker's stdin (we write) and stdout (we read)
  std::string buf;
  std::deque<size_t> sent;   // indexes sent, not yet reported
  long current = -1;         // index announced by "S", not yet reported
  double started = 0, last = 0;
  double born = 0;           // when the worker was started (the warmest spare is fed first)
  int done = 0;              // cases this worker reported
  bool fed = false;          // the worker was sent a case (a spare that never was holds none)
  std::string family;
  std::string log;
};

std::string tail_of(const std::string& path, size_t n) {
  try {
    std::string s = read_file(path);
    if (s.size() > n) s = "..." + s.substr(s.size() - n);
    for (auto& c : s) if (c == '\n') c = ' ';
    return s;
  } catch (...) {
    return "";
  }
}

}  // namespace

std::vector<CaseResult> run_batch(const std::vector<const RunCase*>& cases, const BatchOptions& o, ProgressFn progress) {
  signal(SIGPIPE, SIG_IGN);
  std::vector<CaseResult> results(cases.size());
  std::vector<bool> have(cases.size(), false);
  std::map<std::string, size_t> index_of;
  // Queues per family, so a worker keeps to the modules it has loaded.
  std::map<std::string, std::deque<size_t>> queue;
  std::vector<std::string> order;
  for (size_t i = 0; i < cases.size(); ++i) {
    index_of[cases[i]->id] = i;
    auto& q = queue[cases[i]->form->family];
    if (q.empty()) order.push_back(cases[i]->form->family);
    q.push_back(i);
  }
  size_t remaining = cases.size();
  auto queued = [&]() { size_t n = 0; for (auto& kv : queue) n += kv.second.size(); return n; };
  // The kernel of the case the k-th worker of no family from now would take (take("") k + 1 times), so that a
  // spare loads its module while the others run; a guess (a worker that lives on keeps to its family), which
  // costs only a module load on the spare when it is wrong.
  auto kernel_ahead = [&](size_t k) -> std::string {
    std::map<std::string, size_t> used;
    for (size_t n = 0;; ++n) {
      std::string best;
      size_t most = 0;
      for (auto& [f, q] : queue)
        if (q.size() - used[f] > most) { most = q.size() - used[f]; best = f; }
      if (most == 0) return "";
      if (n == k) return cases[queue[best][used[best]]]->form->kernel;
      ++used[best];
    }
  };
  auto take = [&](const std::string& pref) -> long {
    auto it = queue.find(pref);
    if (it == queue.end() || it->second.empty()) {
      it = queue.end();
      size_t best = 0;
      for (auto i = queue.begin(); i != queue.end(); ++i)
        if (i->second.size() > best) { best = i->second.size(); it = i; }
      if (it == queue.end()) return -1;
    }
    long v = long(it->second.front());
    it->second.pop_front();
    return v;
  };
  auto record = [&](size_t i, CaseResult r) {
    if (have[i]) return;
    have[i] = true;
    --remaining;
    r.id = cases[i]->id;
    r.family = cases[i]->form->family;
    r.form = cases[i]->form->form;
    r.target = cases[i]->target;
    r.ptx = cases[i]->ptx;
    r.load_path = o.load_path;
    // Every result of a case passes here, reported by its worker or made here (a worker that died or hung): one
    // of a recorded device finding keeps its class and names the finding (device_quirks.hpp).
    if (const std::string rec = recorded_finding(*cases[i], r); !rec.empty()) r.details["recorded_finding"] = rec;
    results[i] = r;
    if (progress) progress(results[i]);
  };
  auto synth = [&](size_t i, const char* k, const std::string& msg) {
    CaseResult r;
    r.cls = k;
    r.message = msg;
    record(i, r);
  };

  int jobs = std::max(1, std::min<int>(o.jobs, int(cases.size())));
  int spares = std::max(0, std::min<int>(o.spares, int(cases.size()) - 1));
  std::vector<Slot> slots(static_cast<size_t>(jobs + spares));
  int startup_failures = 0;
  int spare_failures = 0;   // spares that died before they were fed: three and no more spares start
  int spawned = 0;
  make_dirs(o.log_dir);

  auto spawn = [&](Slot& s) {
    s.log = o.log_dir + "/worker-" + o.load_path + (o.log_tag.empty() ? "" : "-" + o.log_tag) + "-" +
            std::to_string(s.n) + ".log";
    // Everything the child needs is made before fork: another thread (Schedule) may hold a lock at that moment.
    std::vector<std::string> a = {o.self, "--worker", "--load-path", o.load_path, "--modules", o.modules,
                                  "--target", o.target, "--ptx", o.ptx, "--seed", std::to_string(o.seed),
                                  "--timeout", std::to_string(o.timeout_s), "--log-dir", o.log_dir};
    if (!o.toolchain.empty()) { a.push_back("--toolchain"); a.push_back(o.toolchain); }
    if (o.source.size() == 2) { a.push_back(o.source[0] == "--modules" ? "--prebuilt" : "--frontend"); a.push_back(o.source[1]); }
    if (o.device != "gpu") { a.push_back("--device"); a.push_back(o.device); }
    if (!o.repro) a.push_back("--no-repro");
    for (auto& p : o.plan_args) a.push_back(p);
    std::vector<char*> av;
    for (auto& x : a) av.push_back(const_cast<char*>(x.c_str()));
    av.push_back(nullptr);
    const std::string exec_failed = "cannot execute worker " + o.self + ": ";
    // Close-on-exec pipes: no other worker (of this batch, or of one another thread runs) holds this one's
    // stdin or stdout, so its end is seen at once.
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return false;
    if (pipe2(out, O_CLOEXEC) != 0) { close(in[0]); close(in[1]); return false; }
    pid_t pid = fork();
    if (pid < 0) { close(in[0]); close(in[1]); close(out[0]); close(out[1]); return false; }
    if (pid == 0) {
      // Its own process group (a Ctrl-C on the terminal reaches the parent only, which stops the workers itself)
      // and killed with its parent (no orphan holds a GPU context after the parent is gone).
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() == 1) _exit(1);
      dup2(in[0], 0);
      dup2(out[1], 1);
      int lf = open(s.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (lf >= 0) dup2(lf, 2);
      execv(av[0], av.data());
      const std::string msg = exec_failed + std::strerror(errno) + "\n";
      ssize_t n = write(2, msg.data(), msg.size());
      (void)n;
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    s.pid = pid;
    s.to = in[1];
    s.from = out[0];
    s.buf.clear();
    s.sent.clear();
    s.current = -1;
    s.done = 0;
    s.fed = false;
    s.started = s.last = s.born = now_s();
    ++spawned;
    return true;
  };
  auto feed = [&](Slot& s) {
    if (s.to < 0) return;
    const bool was_idle = s.sent.empty();
    std::string chunk;
    while (s.sent.size() < size_t(std::max(1, o.ahead))) {
      long i = take(s.family);
      if (i < 0) break;
      s.family = cases[size_t(i)]->form->family;
      s.sent.push_back(size_t(i));
      s.fed = true;
      chunk += case_line(*cases[size_t(i)]) + "\n";
    }
    if (!chunk.empty() && was_idle) s.last = now_s();  // an idle spare's silence so far is not a hang
    if (!chunk.empty() && write(s.to, chunk.data(), chunk.size()) != ssize_t(chunk.size())) {
      // The worker is gone; its exit is handled when its stdout reaches EOF.
    }
    if (queued() == 0 && s.to >= 0) { close(s.to); s.to = -1; }
  };
  // Workers that reported everything they were given and closed their pipes, whose exit (the context's
  // teardown, which the driver runs one context at a time for the whole host) is waited for at the batch's end,
  // so that their slots take new workers and cases meanwhile.
  std::vector<pid_t> lingering;
  // The worker ended (EOF on its stdout): account for what it held.
  auto ended = [&](Slot& s, const std::string& why_killed) {
    if (s.to >= 0) close(s.to);
    if (s.from >= 0) close(s.from);
    s.to = s.from = -1;
    int st = 0;
    // A worker that reported every case it was given, or a spare told there is nothing left, held nothing: its
    // exit is not waited for now (its status says nothing about a case).
    const bool held_nothing = why_killed.empty() && s.current < 0 && s.sent.empty() && (s.fed || queued() == 0);
    if (waitpid(s.pid, &st, held_nothing ? WNOHANG : 0) == 0) {
      lingering.push_back(s.pid);
      s.pid = -1;
      if (s.fed) startup_failures = 0;
      return;
    }
    s.pid = -1;
    std::string how = WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st))
                                      : "exit status " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    if (!s.fed) {
      // A spare that ended before it was given a case: its stdin was closed (nothing left), or it could not
      // start; whether workers can start at all is decided by the ones given cases.
      if (why_killed.empty() && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) && ++spare_failures >= 3) spares = 0;
      return;
    }
    if (s.current >= 0) {
      size_t i = size_t(s.current);
      // A stop was requested: the worker most likely died of the same signal (sent to the whole group), so its
      // case was not judged; a crash would be a verdict that --resume keeps.
      if (why_killed == "interrupted" || (why_killed.empty() && g_stop_requested)) synth(i, cls::skipped, "interrupted");
      else if (!why_killed.empty()) synth(i, cls::timeout, why_killed);
      else synth(i, cls::crash, "the worker process died while running this case (" + how + "); log: " + tail_of(s.log, 600));
      for (auto it = s.sent.begin(); it != s.sent.end(); ++it)
        if (*it == i) { s.sent.erase(it); break; }
    }
    bool startup = s.done == 0 && s.current < 0 && !s.sent.empty();
    // Cases sent but never started go back to the front of their queue.
    for (auto it = s.sent.rbegin(); it != s.sent.rend(); ++it)
      if (!have[*it]) queue[cases[*it]->form->family].push_front(*it);
    s.sent.clear();
    s.current = -1;
    if (startup && !g_stop_requested) {   // workers killed by a stop are no failure to start
      if (++startup_failures >= 3) {
        std::string msg = "the worker could not start (" + how + "): " + tail_of(s.log, 800);
        for (auto& kv : queue) for (size_t i : kv.second) synth(i, cls::crash, msg);
        for (auto& kv : queue) kv.second.clear();
      }
    } else {
      startup_failures = 0;
    }
  };

  for (size_t k = 0; k < slots.size(); ++k) slots[k].n = int(k);
  bool stopped = false;
  // Held (o.hold_fd, until it reads EOF): every slot's worker starts as a spare and no case is fed.
  bool held = o.hold_fd >= 0;
  while (remaining > 0) {
    if (g_stop_requested) {
      // SIGINT/SIGTERM: kill every worker now; a case it was running was not judged: skipped, "interrupted".
      for (auto& s : slots)
        if (s.pid > 0) {
          kill(s.pid, SIGKILL);
          ended(s, "interrupted");
        }
      for (auto& kv : queue) for (size_t i : kv.second) synth(i, cls::skipped, "interrupted");
      for (auto& kv : queue) kv.second.clear();
      for (size_t i = 0; i < cases.size(); ++i)
        if (!have[i]) synth(i, cls::skipped, "interrupted");
      break;
    }
    if (!stopped && o.deadline > 0 && now_s() > o.deadline) {
      // Deadline or signal: nothing new starts; queued cases are `skipped` (not attempted); cases in flight
      // finish or are cut off by the watchdogs.
      stopped = true;
      std::string why = "not attempted: the run's --deadline was reached";
      for (auto& kv : queue) for (size_t i : kv.second) synth(i, cls::skipped, why);
      for (auto& kv : queue) kv.second.clear();
      for (auto& s : slots) {
        for (auto it = s.sent.begin(); it != s.sent.end();) {
          if (long(*it) != s.current) { synth(*it, cls::skipped, why); it = s.sent.erase(it); } else { ++it; }
        }
        if (s.to >= 0) { close(s.to); s.to = -1; }
      }
      if (remaining == 0) break;
    }
    // Workers running cases are topped up; idle ones (spares, warmest first) take cases while fewer than
    // `jobs` run; then workers start for the jobs still free plus the spares, no more than the cases left.
    auto busy = [](const Slot& s) { return s.pid > 0 && !s.sent.empty(); };
    int nbusy = 0, live = 0;
    for (auto& s : slots) {
      if (busy(s)) { feed(s); ++nbusy; }
      live += s.pid > 0;
    }
    std::vector<Slot*> idle;
    for (auto& s : slots)
      if (s.pid > 0 && s.sent.empty() && s.to >= 0) idle.push_back(&s);
    std::stable_sort(idle.begin(), idle.end(), [](const Slot* a, const Slot* b) { return a->born < b->born; });
    for (Slot* s : idle)
      if (!held && nbusy < jobs && queued() > 0) { feed(*s); nbusy += busy(*s); }
    for (auto& s : slots) {
      if (s.pid >= 0) continue;
      // Held, every slot (a spare that failed three times stops it: spares 0).
      const size_t want_idle = held ? (spares > 0 ? std::min(queued(), slots.size()) : 0)
                                    : std::min(queued(), size_t(std::max(0, jobs - nbusy) + spares));
      if (size_t(live - nbusy) >= want_idle) break;
      if (!spawn(s)) {
        for (auto& kv : queue) for (size_t i : kv.second) synth(i, cls::crash, "cannot fork a worker");
        for (auto& kv : queue) kv.second.clear();
        break;
      }
      ++live;
      if (!held && nbusy < jobs) {
        feed(s);
        nbusy += busy(s);
      } else if (const std::string k = kernel_ahead(size_t(live - nbusy - 1)); !k.empty()) {
        const std::string line = "P " + k + "\n";  // a spare: load the module of the case it will likely take
        if (write(s.to, line.data(), line.size()) != ssize_t(line.size())) {
          // The worker is gone; its exit is handled when its stdout reaches EOF.
        }
      }
    }
    if (queued() == 0)  // nothing left to give: idle workers end (EOF on their stdin)
      for (auto& s : slots)
        if (s.pid > 0 && s.sent.empty() && s.to >= 0) { close(s.to); s.to = -1; }
    std::vector<pollfd> pf;
    std::vector<Slot*> ps;
    for (auto& s : slots)
      if (s.pid > 0) { pf.push_back({s.from, POLLIN, 0}); ps.push_back(&s); }
    if (held) {
      pollfd h{o.hold_fd, POLLIN, 0};
      if (poll(&h, 1, 0) > 0) {
        held = false;  // released: the loop feeds the warm workers now
        continue;
      }
      pf.push_back(h);
      ps.push_back(nullptr);
    }
    if (pf.empty()) {
      if (queued() == 0 && remaining > 0) {
        // Should not happen: every case is either queued, sent or recorded. Account for the rest loudly.
        for (size_t i = 0; i < cases.size(); ++i)
          if (!have[i]) synth(i, cls::crash, "harness: case lost by the batch executor");
      }
      continue;
    }
    poll(pf.data(), pf.size(), 200);
    double now = now_s();
    for (size_t k = 0; k < pf.size(); ++k) {
      if (!ps[k]) continue;  // the hold: seen at the loop's top
      Slot& s = *ps[k];
      if (pf[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        ssize_t n = read(s.from, buf, sizeof buf);
        if (n <= 0) { ended(s, ""); continue; }
        s.buf.append(buf, size_t(n));
        s.last = now;
        size_t nl;
        while ((nl = s.buf.find('\n')) != std::string::npos) {
          std::string line = s.buf.substr(0, nl);
          s.buf.erase(0, nl + 1);
          if (line.size() > 2 && line[0] == 'S' && line[1] == ' ') {
            auto it = index_of.find(line.substr(2));
            s.current = it == index_of.end() ? -1 : long(it->second);
            s.started = now;
          } else if (line.size() > 2 && line[0] == 'R' && line[1] == ' ') {
            CaseResult r;
            try {
              r = CaseResult::from_json(Json::parse(line.substr(2)));
            } catch (const std::exception& e) {
              r.cls = cls::crash;
              r.message = std::string("harness: unreadable result line: ") + e.what();
            }
            auto it = index_of.find(r.id);
            if (it == index_of.end() && s.current >= 0) it = index_of.find(cases[size_t(s.current)]->id);
            if (it != index_of.end()) {
              for (auto q = s.sent.begin(); q != s.sent.end(); ++q)
                if (*q == it->second) { s.sent.erase(q); break; }
              record(it->second, r);
            }
            s.current = -1;
            ++s.done;
          } else if (line.size() > 1 && line[0] == 'X') {
            // The worker ends (its context is lost): no case is given to it while its exit takes its time.
            if (s.to >= 0) { close(s.to); s.to = -1; }
          }
        }
      }
    }
    // Parent watchdogs: a case past the worker's own watchdog, or a worker silent for long (module load hang).
    for (auto& s : slots) {
      if (s.pid <= 0) continue;
      if (s.current >= 0 && now - s.started > o.timeout_s + o.kill_margin_s) {
        kill(s.pid, SIGKILL);
        ended(s, "parent watchdog: no result " + std::to_string(int(o.timeout_s + o.kill_margin_s)) +
                     " s after the case started; worker killed");
      } else if (s.current < 0 && !s.sent.empty() && now - s.last > 600) {
        kill(s.pid, SIGKILL);
        s.current = long(s.sent.front());
        ended(s, "parent watchdog: the worker made no progress for 600 s before starting this case (module load?)");
      }
    }
  }
  for (auto& s : slots)
    if (s.pid > 0) {
      if (s.to >= 0) close(s.to);
      if (!s.fed) kill(s.pid, SIGKILL);  // a spare never given a case holds nothing: do not wait on its start-up
      int st;
      waitpid(s.pid, &st, 0);
      if (s.from >= 0) close(s.from);
    }
  for (pid_t p : lingering) {  // every worker of the batch is gone when it returns
    if (g_stop_requested) kill(p, SIGKILL);
    int st;
    waitpid(p, &st, 0);
  }
  return results;
}

}  // namespace ptxcts::run
