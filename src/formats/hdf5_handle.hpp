#pragma once
// What the HDF5 map container (formats/hdf5_arrays.cpp) and the HDF5 backends
// (backends/hdf5_common.hpp) share: error conversion, an owning handle, and
// E3SM-IO's attribute conventions.  Below the backends, so that a format does
// not include a backend.
#include <hdf5.h>

#include <string>

namespace iok::h5 {

// The current HDF5 error stack as text ("H5Dwrite(): can't write data; ..."),
// then cleared.  HDF5's automatic printing is switched off by the backends.
std::string error_stack();

// Throws iok::Error naming `what` (file/variable/operation), the library's
// own message and `hint`, when `status` is negative.
template <class T>
T check(T status, const std::string& what, const std::string& hint = {});

// Owns one hid_t and closes it with the right H5*close.
class Handle {
public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer close) : id_(id), close_(close) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
    Handle& operator=(Handle&& o) noexcept;
    ~Handle() { reset(); }
    hid_t get() const { return id_; }
    operator hid_t() const { return id_; }
    void reset();
    hid_t release() {  // give up ownership without closing
        hid_t id = id_;
        id_ = H5I_INVALID_HID;
        return id;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
    Closer close_ = nullptr;
};

// E3SM-IO's HDF5 layout, shared by the backends and the map writer: text is a
// scalar fixed-length string holding the C string with its NUL; a dimension
// is a scalar unsigned 64-bit root attribute "-DIM_<name>" (HDF5 has no
// dimension objects).  `what` names the file in error messages.
void write_text_attr(hid_t obj, const std::string& name, const std::string& text, const std::string& what);
void write_dim_attr(hid_t file, const std::string& dim, hsize_t length, const std::string& what);

}  // namespace iok::h5
