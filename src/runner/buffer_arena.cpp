#include "runner/buffer_arena.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace iok {

namespace {
// Large arenas start on a 2 MiB boundary and ask for transparent huge pages
// (the kernel's default mode is "madvise"): the first touch of a 128 MiB
// read buffer then takes 64 page faults instead of 32,768 (perf on bdcats:
// page faults were most of its buffer preparation).  The pages are still
// zeroed by the kernel; the contents are written before use anyway.
constexpr std::size_t kHuge = std::size_t(2) << 20;
}  // namespace

void BufferArena::Free::operator()(unsigned char* p) const { std::free(p); }

std::size_t BufferArena::reserve(std::size_t bytes) {
    // keep every slice 8-byte aligned so doubles and int64 are aligned
    total_ = (total_ + 7) & ~std::size_t{7};
    offsets_.push_back(total_);
    total_ += bytes + gap_;
    return offsets_.size() - 1;
}

bool BufferArena::allocate() {
    if (base_ && total_ <= capacity_) return false;
    base_.reset();  // the old one first: never both at once
    const bool huge = total_ >= kHuge;
    const std::size_t align = huge ? kHuge : 64;
    capacity_ = ((total_ ? total_ : 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
    void* p = std::aligned_alloc(align, capacity_);
    if (!p) throw std::bad_alloc();
    if (huge) madvise(p, capacity_, MADV_HUGEPAGE);  // advice only: no huge pages is no error
    base_.reset(static_cast<unsigned char*>(p));
    return true;
}

}  // namespace iok
