// The isolated worker process (ptxcts-run --worker): what the batch executor (batch.hpp) starts.
#pragma once

namespace ptxcts::run {

// Worker mode (worker.cpp): reads case lines (case_line, case.hpp) from stdin, writes "S <id>" before and
// "R <json>" after each case on stdout.
int worker_main(int argc, char** argv);

}  // namespace ptxcts::run
