// IRLITE_API marks what the shared library exports: the public API declared under include/irlite/.
// The library is compiled with hidden visibility (CMakeLists.txt), so everything else, the
// engine, parser and kernels included, stays internal to it.
#pragma once

#if defined(_WIN32)
#  if defined(IRLITE_BUILDING_SHARED)
#    define IRLITE_API __declspec(dllexport)
#  elif defined(IRLITE_USING_SHARED)
#    define IRLITE_API __declspec(dllimport)
#  else
#    define IRLITE_API
#  endif
#else
#  define IRLITE_API __attribute__((visibility("default")))
#endif
