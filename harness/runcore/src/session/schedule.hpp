// The order a session runs its batches' phases in (RUNNING.md, "The trap phase"). One after another (run_phases'
// order, --no-overlap), or overlapped: the calm phases run one after another in one thread while the trap phases
// run one after another in another (a trap costs time the driver serialises, little of the GPU), and what a
// neighbour could have caused is run again alone, with nothing beside it, once both are done.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "phases.hpp"

namespace ptxcts::run {

class Schedule {
 public:
  // `progress` is called for every result, never from two threads at once.
  Schedule(const PhaseOptions& po, bool overlap, ProgressFn progress);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // Hands a batch over. One after another: its phases run now, in this thread (calm, its re-runs alone, traps,
  // theirs). Overlapped: its calm phase and its trap phase are queued for the two threads, and this thread may
  // go on (e.g. prepare the modules of a later target).
  void add(Batch b);
  // No more batches: waits for both threads, runs again alone (one case at a time, nothing beside it) the calm
  // results a trap phase beside them could have caused and the trap-phase results not trusted, prints each
  // batch's timing line and a line saying what overlapped. Rethrows what a thread threw.
  void finish();
  // The batches, in the order added; their results and timing are final after finish().
  const std::deque<Batch>& batches() const { return batches_; }

 private:
  void consume(bool traps);
  PhaseOptions po_;
  bool overlap_;
  ProgressFn progress_;
  double t0_;
  std::deque<Batch> batches_;   // elements keep their addresses while more are added
  std::mutex m_;                // batches_, closed_, error_
  std::mutex progress_m_;       // progress_
  std::condition_variable cv_;
  bool closed_ = false, finished_ = false;
  std::thread calm_, traps_;
  std::exception_ptr error_;
};

}  // namespace ptxcts::run
