#include "schedule.hpp"

#include <cstdio>

#include "util.hpp"

namespace ptxcts::run {

Schedule::Schedule(const PhaseOptions& po, bool overlap, ProgressFn progress)
    : po_(po), overlap_(overlap), t0_(now_s()) {
  if (progress)
    progress_ = [this, progress](const CaseResult& r) {
      std::lock_guard<std::mutex> l(progress_m_);
      progress(r);
    };
  if (!overlap_) return;
  // Each thread reaps the workers it started before it ends: a worker dies with the thread that forked it
  // (PR_SET_PDEATHSIG follows the thread), and run_batch waits for all of its own.
  calm_ = std::thread([this] { consume(false); });
  traps_ = std::thread([this] { consume(true); });
}

Schedule::~Schedule() {
  if (!finished_) {
    {
      std::lock_guard<std::mutex> l(m_);
      closed_ = true;
    }
    cv_.notify_all();
    if (calm_.joinable()) calm_.join();
    if (traps_.joinable()) traps_.join();
  }
}

void Schedule::add(Batch b) {
  if (!overlap_) {
    batches_.push_back(std::move(b));
    run_in_turn(batches_.back(), po_, progress_, t0_);
    if (!po_.quiet) print_batch_timing(batches_.back().t);
    return;
  }
  {
    std::lock_guard<std::mutex> l(m_);
    batches_.push_back(std::move(b));
  }
  cv_.notify_all();
}

void Schedule::consume(bool traps) {
  try {
    for (size_t i = 0;; ++i) {
      Batch* b = nullptr;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return i < batches_.size() || closed_; });
        if (i >= batches_.size()) return;
        b = &batches_[i];
      }
      // Each thread writes only its own phase's fields of the batch.
      if (traps) {
        if (!b->trapping.empty()) b->t.trap_at_s = now_s() - t0_;
        run_traps(*b, po_, progress_);
      } else {
        b->t.calm_at_s = now_s() - t0_;
        run_calm(*b, progress_);
      }
    }
  } catch (...) {
    std::lock_guard<std::mutex> l(m_);
    if (!error_) error_ = std::current_exception();
  }
}

void Schedule::finish() {
  if (finished_) return;
  finished_ = true;
  if (!overlap_) return;
  {
    std::lock_guard<std::mutex> l(m_);
    closed_ = true;
  }
  cv_.notify_all();
  calm_.join();
  traps_.join();
  if (error_) std::rethrow_exception(error_);
  const double overlapped_s = now_s() - t0_;
  // Which phases ran at the same time as which: a calm phase is confirmed as one beside a trap phase only when
  // one ran during it, and a trap phase as one beside calm workers only when a calm phase ran during it.
  auto meet = [](double a0, double a1, double b0, double b1) { return a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1; };
  double calm_s = 0, trap_s = 0;
  const double t1 = now_s();
  size_t again = 0;
  for (auto& b : batches_) {
    bool beside_traps = false, beside_calm = false;
    for (auto& o : batches_) {
      beside_traps |= meet(b.calm_from, b.calm_to, o.trap_from, o.trap_to);
      beside_calm |= meet(b.trap_from, b.trap_to, o.calm_from, o.calm_to);
    }
    confirm_calm(b, po_, beside_traps);
    confirm_traps(b, po_, beside_calm);
    calm_s += b.t.batch_s;
    trap_s += b.t.trap_s;
    again += b.t.rerun_alone + b.t.trap_rerun_alone;
  }
  if (po_.quiet) return;
  for (auto& b : batches_) print_batch_timing(b.t);
  std::fprintf(stderr,
               "run: overlapped: %zu calm phase(s), %.1f s in all, beside %.1f s of trap phases: %.1f s; "
               "then %zu case(s) re-run alone in %.1f s\n",
               batches_.size(), calm_s, trap_s, overlapped_s, again, now_s() - t1);
}

}  // namespace ptxcts::run
