#include "formats/hdf5_handle.hpp"

#include "core/error.hpp"

namespace iok::h5 {

namespace {

herr_t collect_error(unsigned n, const H5E_error2_t* e, void* out) {
    auto* s = static_cast<std::string*>(out);
    if (n > 0) *s += "; ";
    *s += std::string(e->func_name ? e->func_name : "?") + "(): " + (e->desc ? e->desc : "");
    return 0;
}

std::string default_hint() {
    return "check the path is writable/readable and on a parallel file system reachable by all "
           "ranks; HDF5_DEBUG or `h5dump -H` on the file may tell more";
}

}  // namespace

std::string error_stack() {
    std::string s;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &s);
    H5Eclear2(H5E_DEFAULT);
    return s.empty() ? "no HDF5 error message" : s;
}

template <class T>
T check(T status, const std::string& what, const std::string& hint) {
    if (status < 0) throw Error("HDF5: " + what + " failed: " + error_stack(), hint.empty() ? default_hint() : hint);
    return status;
}
template hid_t check<hid_t>(hid_t, const std::string&, const std::string&);
template herr_t check<herr_t>(herr_t, const std::string&, const std::string&);

Handle& Handle::operator=(Handle&& o) noexcept {
    if (this != &o) {
        reset();
        id_ = o.id_;
        close_ = o.close_;
        o.id_ = H5I_INVALID_HID;
    }
    return *this;
}

void Handle::reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
}

void write_text_attr(hid_t obj, const std::string& name, const std::string& text, const std::string& what) {
    const std::string w = "attribute '" + name + "' of " + what;
    Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy " + w), H5Tclose);
    check(H5Tset_size(type, text.size() + 1), "H5Tset_size " + w);
    check(H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad " + w);
    Handle space(check(H5Screate(H5S_SCALAR), "H5Screate " + w), H5Sclose);
    Handle attr(check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "creating " + w), H5Aclose);
    check(H5Awrite(attr, type, text.c_str()), "writing " + w);
}

void write_dim_attr(hid_t file, const std::string& dim, hsize_t length, const std::string& what) {
    const std::string w = "attribute '-DIM_" + dim + "' of " + what;
    Handle space(check(H5Screate(H5S_SCALAR), "H5Screate " + w), H5Sclose);
    Handle attr(check(H5Acreate2(file, ("-DIM_" + dim).c_str(), H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT),
                      "creating " + w),
                H5Aclose);
    check(H5Awrite(attr, H5T_NATIVE_HSIZE, &length), "writing " + w);
}

}  // namespace iok::h5
