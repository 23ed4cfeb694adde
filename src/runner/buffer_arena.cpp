#include "runner/buffer_arena.hpp"

namespace iok {

std::size_t BufferArena::reserve(std::size_t bytes) {
    // keep every slice 8-byte aligned so doubles and int64 are aligned
    total_ = (total_ + 7) & ~std::size_t{7};
    offsets_.push_back(total_);
    total_ += bytes + gap_;
    return offsets_.size() - 1;
}

void BufferArena::allocate() {
    if (base_ && total_ <= capacity_) return;
    capacity_ = total_ ? total_ : 1;
    base_.reset();  // the old one first: never both at once
    base_.reset(new unsigned char[capacity_]);
}

}  // namespace iok
