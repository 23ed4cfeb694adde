#include "core/buffer_arena.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace iok {

namespace {
// Large arenas are prefaulted in one call (MADV_POPULATE_WRITE, Linux 5.14+):
// the first touch of a 128 MiB read buffer took 32,768 page faults, most of
// bdcats' "buffer preparation".  They no longer ask for transparent huge
// pages: with the kernel's default defrag mode ("madvise") an madvised
// region compacts memory on fault, and bdcats' preparation then varied
// 0.06-0.87 s from run to run after a large write had filled the page cache
// (4 ranks x 128 MiB; with the prefault and small pages: 0.10 s, steady).
// Older kernels refuse the advice: the pages are then faulted on first use.
constexpr std::size_t kLarge = std::size_t(2) << 20;
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
    const bool large = total_ >= kLarge;
    const std::size_t align = large ? 4096 : 64;
    capacity_ = ((total_ ? total_ : 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
    void* p = std::aligned_alloc(align, capacity_);
    if (!p) throw std::bad_alloc();
#ifdef MADV_POPULATE_WRITE
    if (large) madvise(p, capacity_, MADV_POPULATE_WRITE);  // advice only: a refusal is no error
#endif
    base_.reset(static_cast<unsigned char*>(p));
    return true;
}

}  // namespace iok
