#ifndef HAPTICSYNTH_BUILD_INFO_H
#define HAPTICSYNTH_BUILD_INFO_H

/// The version this build was made from (the repository's VERSION file, read by Package.swift).
const char *hapticsynth_build_version(void);
/// The git commit it was built from ("unknown" outside a checkout).
const char *hapticsynth_build_commit(void);

#endif
