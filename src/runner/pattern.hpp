#pragma once
// The deterministic data pattern: every element's value is a function of the
// variable (by name), its global element index and the record, so a value
// that lands in the wrong place, record or variable is detectable, and files
// written with any rank count or library hold identical data.  (A hash per
// 512-element block mixed with the position in the block: pattern.cpp.)
//
// Values are chosen to be exact in every type they are stored as: floats and
// doubles hold a 24-bit integer divided by 256 (exact in float), ints a 31-bit
// integer, chars a printable letter.
#include <cstdint>
#include <string>

#include "model/dtype.hpp"
#include "model/selection.hpp"

namespace iok {

std::uint64_t pattern_key(const std::string& var_name);

// Value of one element, as a double (converted to the element type on store).
double pattern_value(std::uint64_t key, std::uint64_t element, std::uint64_t record);

// Fill `buf` (elements of type t, packed in the selection's block order).
// `buf` may start at any byte (every function here takes any alignment).
void pattern_fill(DType t, void* buf, const Selection& sel, std::uint64_t key, std::uint64_t record);

// Fill n elements with one constant (fill values).
void fill_constant(DType t, void* buf, std::uint64_t n, double value);

struct Mismatch {
    bool found = false;
    std::uint64_t element = 0;   // global flattened element index
    std::uint64_t position = 0;  // index in the buffer
    double expected = 0, actual = 0;
};

// First element of `buf` that differs from the pattern (or from `constant`
// when given: used for fill values).
Mismatch pattern_check(DType t, const void* buf, const Selection& sel, std::uint64_t key, std::uint64_t record);
Mismatch constant_check(DType t, const void* buf, const Selection& sel, double constant);

}  // namespace iok
