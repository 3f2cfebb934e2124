// RUN: gp-opt %s -split-input-file -verify-diagnostics

// `gp.size_classes` (written by gp-size-classes, read into the manifest)
// must describe the function it is on.

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class 'n' names argument 2 dimension 0, which the function does not have}}
func.func @no_such_argument(%x: memref<?xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"n", arguments = [2, 0], results = [], fixed = -1, maximum = -1, unpaddable = "">]} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class 'n' names argument 0 dimension 1, which is not a dynamic dimension}}
func.func @static_dimension(%x: memref<?x4xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"n", arguments = [0, 1], results = [], fixed = -1, maximum = -1, unpaddable = "">]} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class 'n' names argument 0 dimension -1, but that argument is not an index}}
func.func @not_an_index(%x: memref<?xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"n", arguments = [0, -1], results = [], fixed = -1, maximum = -1, unpaddable = "">]} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class 'm' names result 0 dimension 0, which another size class also names}}
func.func @twice(%x: memref<?xf32, #cuda0>, %y: memref<?xf32, #cuda0>) -> memref<?xf32, #cuda0> attributes {gp.size_classes = [#gp.size_class<"n", arguments = [0, 0], results = [0, 0], fixed = -1, maximum = -1, unpaddable = "">, #gp.size_class<"m", arguments = [1, 0], results = [0, 0], fixed = -1, maximum = -1, unpaddable = "">]} {
  return %x : memref<?xf32, #cuda0>
}

// -----

// expected-error @+1 {{'gp.size_classes' belongs on a function and is an array of #gp.size_class}}
func.func @not_an_array() attributes {gp.size_classes = 3} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class 'n' has no argument member}}
func.func @no_argument(%x: memref<?xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"n", arguments = [], results = [], fixed = -1, maximum = -1, unpaddable = "">]} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class members are (index, dimension) pairs}}
func.func @odd(%x: memref<?xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"n", arguments = [0], results = [], fixed = -1, maximum = -1, unpaddable = "">]} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class name must be a non-empty word}}
func.func @bad_name(%x: memref<?xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"two words", arguments = [0, 0], results = [], fixed = -1, maximum = -1, unpaddable = "">]} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// expected-error @+1 {{size class maximum must be -1 or a size, got -5}}
func.func @bad_maximum(%x: memref<?xf32, #cuda0>) attributes {gp.size_classes = [#gp.size_class<"n", arguments = [0, 0], results = [], fixed = -1, maximum = -5, unpaddable = "">]} {
  return
}
