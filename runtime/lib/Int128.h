//===- Int128.h - 128-bit integers for overflow-free arithmetic -*- C++ -*-===//
//
// Address and size arithmetic on values from untrusted files is done in 128
// bits, where it cannot overflow, and range-checked before use.
// `__extension__` keeps -pedantic builds (LLVM's flags) quiet.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_INT128_H
#define SPYRE_RUNTIME_INT128_H

namespace spyre::rt {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_INT128_H
