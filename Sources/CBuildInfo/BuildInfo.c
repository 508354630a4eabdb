// What Package.swift defines from the repository (VERSION, the git commit): compiled here, in C,
// because a Swift `-D` carries no value, and only this small file recompiles when they change.
#include "BuildInfo.h"

#ifndef HAPTICSYNTH_VERSION
#define HAPTICSYNTH_VERSION "unknown"
#endif
#ifndef HAPTICSYNTH_COMMIT
#define HAPTICSYNTH_COMMIT "unknown"
#endif

const char *hapticsynth_build_version(void) { return HAPTICSYNTH_VERSION; }
const char *hapticsynth_build_commit(void) { return HAPTICSYNTH_COMMIT; }
