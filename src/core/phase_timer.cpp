#include "core/phase_timer.hpp"

namespace iok {

int PhaseTimer::index(const std::string& phase) {
    for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == phase) return static_cast<int>(i);
    names_.push_back(phase);
    totals_.push_back(0.0);
    return static_cast<int>(names_.size() - 1);
}

void PhaseTimer::start(const std::string& phase) {
    if (running_ >= 0) stop();
    if (barriers_) MPI_Barrier(comm_);
    running_ = index(phase);
    t0_ = MPI_Wtime();
}

void PhaseTimer::start_local(const std::string& phase) {
    if (running_ >= 0) stop();
    running_ = index(phase);
    t0_ = MPI_Wtime();
}

void PhaseTimer::stop() {
    if (running_ < 0) return;
    totals_[static_cast<std::size_t>(running_)] += MPI_Wtime() - t0_;
    running_ = -1;
}

double PhaseTimer::seconds(const std::string& phase) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == phase) return totals_[i];
    return 0.0;
}

std::vector<PhaseTimer::Reduced> PhaseTimer::reduce() const {
    auto stats = reduce_over_ranks(comm_, totals_);
    std::vector<Reduced> out;
    for (std::size_t i = 0; i < stats.size(); ++i) out.push_back({names_[i], stats[i]});
    return out;
}

}  // namespace iok
