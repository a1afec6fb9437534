/* Which flavour this module was compiled as (setup.py defines MJSIM_DEBUG for the debug build). */
#ifndef MJSIM_BUILD_H
#define MJSIM_BUILD_H
/* setup.py defines MJSIM_DEBUG for the bounds-checked build */
#ifdef MJSIM_DEBUG
#define MJSIM_IS_DEBUG_BUILD 1
#else
#define MJSIM_IS_DEBUG_BUILD 0
#endif
#endif
