#include "core/buffer_arena.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace iok {

namespace {
// Large arenas are prefaulted in one call (MADV_POPULATE_WRITE, Linux
// 5.14+): the first touch of a 128 MiB read buffer took 32,768 page faults,
// most of bdcats' "buffer preparation".  Asked for zero bytes (reads), they
// are fresh anonymous mappings rather than aligned_alloc's, so a read need
// not poison what cannot hold a previous write's values (bdcats: a second
// pass over 128 MiB per rank, issue 19).  They do not ask for transparent
// huge pages: with the kernel's default defrag mode ("madvise") an madvised
// region compacts memory on fault, and bdcats' preparation then varied
// 0.06-0.87 s from run to run after a large write had filled the page
// cache.  Older kernels refuse the advice: the pages are then faulted on
// first use.
constexpr std::size_t kLarge = std::size_t(2) << 20;
}  // namespace

void ArenaFree::operator()(unsigned char* p) const {
    if (mapped)
        munmap(p, mapped);
    else
        std::free(p);
}

std::size_t BufferArena::reserve(std::size_t bytes, std::size_t align) {
    total_ = (total_ + align - 1) & ~(align - 1);
    offsets_.push_back(total_);
    total_ += bytes + gap_;
    return offsets_.size() - 1;
}

bool BufferArena::allocate(bool fresh_zero) {
    if (base_ && total_ <= capacity_) return false;
    base_.reset();  // the old one first: never both at once
    const bool large = total_ >= kLarge;
    const std::size_t align = large ? 4096 : 64;
    capacity_ = ((total_ ? total_ : 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
    if (large && fresh_zero) {
        void* p = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_POPULATE_WRITE
        madvise(p, capacity_, MADV_POPULATE_WRITE);  // advice only: a refusal is no error
#endif
        base_ = std::unique_ptr<unsigned char, Free>(static_cast<unsigned char*>(p), Free{capacity_});
        return true;
    }
    void* p = std::aligned_alloc(align, capacity_);
    if (!p) throw std::bad_alloc();
#ifdef MADV_POPULATE_WRITE
    if (large) madvise(p, capacity_, MADV_POPULATE_WRITE);  // advice only: a refusal is no error
#endif
    base_ = std::unique_ptr<unsigned char, Free>(static_cast<unsigned char*>(p), Free{});
    return true;
}

}  // namespace iok
