// The table the generated kernels (litmodel/cuda.py) give the runner: one row per litmus test.
#pragma once
struct LitmusKernel {
  const char* name;      // the test
  const void* fn;        // its kernel (__cluster_dims__ fixed)
  int ctas;              // CTAs per instance (a multiple of the cluster size)
  int threads;           // test threads
  int nglobal;           // global locations
  int nregs;             // registers reported, in the order of `regs`
  const char* regs;      // "T0:r1 T1:r2"
  const char* globals;   // global location names, blank-separated
  const char* inits;     // their initial values
  const char* observe;   // indices of the global locations whose final values are part of the outcome
  const char* thread_cta;// each test thread's CTA within the instance
  int mutant;            // 1: a graded mutant, judged by its original's labels (killed or survived)
  const char* tmaps;     // indices of the global locations that hold a tensor map (its version: 0 or 1)
};
extern const LitmusKernel kLitmusKernels[];
extern const int kLitmusKernelCount;
