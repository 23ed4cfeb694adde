#pragma once
// Barrier-bracketed phase timers.  Each phase starts after a barrier so that
// a rank's time measures its own work, not waiting for late ranks from the
// previous phase; per-rank times are reduced over ranks in one gather.
#include <mpi.h>

#include <string>
#include <vector>

#include "core/stats.hpp"

namespace iok {

class PhaseTimer {
public:
    explicit PhaseTimer(MPI_Comm comm, bool barriers = true) : comm_(comm), barriers_(barriers) {}

    // Barrier, then start timing `phase` (phases accumulate if repeated).
    void start(const std::string& phase);
    // Start timing `phase` without a barrier: for a local phase (pattern
    // generation, posting nonblocking requests) whose ranks need not start
    // together.  Under oversubscription every barrier makes every rank run
    // in turn; E3SM-IO has one per flush, the runner had three (issue 19).
    void start_local(const std::string& phase);
    void stop();  // stop the running phase (no barrier)
    double seconds(const std::string& phase) const;
    const std::vector<std::string>& phases() const { return names_; }

    struct Reduced {
        std::string phase;
        Stat seconds;
    };
    // Collective; result on rank 0.
    std::vector<Reduced> reduce() const;

private:
    int index(const std::string& phase);
    MPI_Comm comm_;
    bool barriers_;
    std::vector<std::string> names_;
    std::vector<double> totals_;
    int running_ = -1;
    double t0_ = 0;
};

// RAII helper: PhaseScope s(timer, "open");
class PhaseScope {
public:
    PhaseScope(PhaseTimer& t, const std::string& phase) : t_(t) { t_.start(phase); }
    ~PhaseScope() { t_.stop(); }
    PhaseScope(const PhaseScope&) = delete;
    PhaseScope& operator=(const PhaseScope&) = delete;

private:
    PhaseTimer& t_;
};

}  // namespace iok
