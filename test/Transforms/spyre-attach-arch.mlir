// RUN: spyre-opt %s --spyre-attach-arch | FileCheck %s --check-prefix=DEFAULT
// RUN: spyre-opt %s --spyre-attach-arch=arch=%S/Inputs/tiny-arch.json | FileCheck %s --check-prefix=FILE
// RUN: spyre-opt %s --spyre-attach-arch=file=%S/Inputs/tiny-arch.json | FileCheck %s --check-prefix=FILE
// RUN: not spyre-opt %s "--spyre-attach-arch=arch=%S/Inputs/tiny-arch.json file=%S/Inputs/bad-arch.json" 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not spyre-opt %s --spyre-attach-arch=file=%S/Inputs/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not spyre-opt %s --spyre-attach-arch=file=%S/Inputs/bad-arch.json 2>&1 | FileCheck %s --check-prefix=BAD

// The built-in description (arch/spyre.json) when no file is given.
// DEFAULT: #arch = #spyre.arch<{{.*}}cores = 32 : i64{{.*}}lx_bytes = 2097152 : i64{{.*}}name = "spyre-v1-default"{{.*}}stick_bytes = 128 : i64
// DEFAULT: module attributes {spyre.arch = #arch}

// `arch=` as --spyre-pipeline spells it; `file=`, the earlier spelling, is
// an alias; naming two different files is an error.
// FILE: #spyre.arch<{{.*}}cores = 4 : i64{{.*}}lx_bytes = 65536 : i64{{.*}}name = "tiny"

// MISSING: error: cannot read the machine description: cannot open machine description '{{.*}}missing.json'

// BOTH: error: spyre-attach-arch: arch= and its alias file= name different files

// BAD: error: cannot read the machine description: {{.*}}bad-arch.json: field 'cores' must be an integer
module {
}
