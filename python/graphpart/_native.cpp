// The native call path of graphpart.load (runtime.py): one entry's call on
// torch tensors with no per-call Python work per argument or parameter.
//
// Built on first use with torch.utils.cpp_extension (runtime.py, _native()).
// It links no GraphPart library: the runtime's C ABI is reached through the
// function addresses runtime.py hands over (the runtime is already loaded,
// through ctypes). Errors are raised as graphpart.GraphError, with the
// messages the ctypes path gives.

#include <torch/extension.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// gpRtArtifactCallOnStreamChecked / gpRtArtifactCallChecked: the counts
// are checked against the entry's.
using CallOnStreamFn = int32_t (*)(void *, int32_t, void **, int32_t, void **,
                                   int32_t, void *);
using CallFn = int32_t (*)(void *, int32_t, void **, int32_t, void **,
                           int32_t);
using LastErrorFn = const char *(*)();
using SynchronizeFn = int32_t (*)(void *);

PyObject *graphError = PyExc_RuntimeError;

[[noreturn]] void raise(const std::string &message) {
  PyErr_SetString(graphError, message.c_str());
  throw py::error_already_set();
}

at::ScalarType scalarType(const std::string &element) {
  if (element == "f32")
    return at::kFloat;
  if (element == "f64")
    return at::kDouble;
  if (element == "f16")
    return at::kHalf;
  if (element == "bf16")
    return at::kBFloat16;
  if (element == "i64")
    return at::kLong;
  if (element == "i32")
    return at::kInt;
  if (element == "i16")
    return at::kShort;
  if (element == "i8")
    return at::kChar;
  if (element == "ui8")
    return at::kByte;
  if (element == "i1")
    return at::kBool;
  raise("the native call path does not know element type '" + element + "'");
}

std::string shapeText(const std::vector<int64_t> &shape, bool dynamicMarks) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += i ? ", " : "";
    text += dynamicMarks && shape[i] < 0 ? std::string("'?'")
                                         : std::to_string(shape[i]);
  }
  return text + "]";
}

struct ArgSpec {
  bool isBuffer = false;
  bool isParameter = false;
  std::string elementType;
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape;
};

struct ResultSpec {
  bool isBuffer = false;
  at::ScalarType dtype = at::kFloat;
  int64_t rank = 0;
  bool inHostMemory = false;
};

/// The module tensors an artifact reads in place, with the data pointers
/// they had when bound: a call first asks whether any moved.
class BoundTensors {
public:
  void set(const std::vector<at::Tensor> &tensors) {
    tensors_ = tensors;
    pointers_.clear();
    for (const at::Tensor &tensor : tensors_)
      pointers_.push_back(tensor.data_ptr());
  }
  /// The first tensor whose storage is no longer where it was bound, or -1.
  int64_t moved() const {
    for (size_t i = 0; i < tensors_.size(); ++i)
      if (tensors_[i].data_ptr() != pointers_[i])
        return static_cast<int64_t>(i);
    return -1;
  }

private:
  std::vector<at::Tensor> tensors_;
  std::vector<void *> pointers_;
};

class EntryCaller {
public:
  EntryCaller(py::dict functions, int64_t artifact, int64_t program,
              int32_t entry, std::string name, py::list args,
              py::list results, bool cuda, int64_t device, bool views,
              std::vector<int64_t> mutatedInputs)
      : artifact_(reinterpret_cast<void *>(artifact)),
        program_(reinterpret_cast<void *>(program)), entry_(entry),
        name_(std::move(name)), cuda_(cuda), device_(device), views_(views),
        mutatedInputs_(std::move(mutatedInputs)) {
    auto address = [&](const char *key) {
      return reinterpret_cast<void *>(functions[key].cast<int64_t>());
    };
    callOnStream_ = reinterpret_cast<CallOnStreamFn>(address("call_on_stream"));
    call_ = reinterpret_cast<CallFn>(address("call"));
    lastError_ = reinterpret_cast<LastErrorFn>(address("last_error"));
    synchronize_ = reinterpret_cast<SynchronizeFn>(address("synchronize"));
    for (py::handle item : args) {
      auto tuple = item.cast<py::tuple>();
      ArgSpec spec;
      spec.isBuffer = tuple[0].cast<bool>();
      spec.isParameter = tuple[1].cast<bool>();
      if (spec.isBuffer) {
        spec.elementType = tuple[2].cast<std::string>();
        spec.dtype = scalarType(spec.elementType);
        spec.shape = tuple[3].cast<std::vector<int64_t>>();
      }
      if (!spec.isParameter) {
        userPositions_.push_back(args_.size());
        userWords_ += spec.isBuffer ? 3 + 2 * spec.shape.size() : 1;
      }
      args_.push_back(std::move(spec));
    }
    userArgs_ = static_cast<int64_t>(userPositions_.size());
    for (py::handle item : results) {
      auto tuple = item.cast<py::tuple>();
      ResultSpec spec;
      spec.isBuffer = tuple[0].cast<bool>();
      if (spec.isBuffer) {
        spec.dtype = scalarType(tuple[1].cast<std::string>());
        spec.rank = tuple[2].cast<int64_t>();
        spec.inHostMemory = tuple[3].cast<bool>();
        anyHostResult_ |= cuda_ && spec.inHostMemory;
      }
      resultOffsets_.push_back(resultWords_);
      resultWords_ += spec.isBuffer ? 3 + 2 * spec.rank : 1;
      results_.push_back(spec);
    }
  }

  py::object call(int64_t stream, py::args values) {
    if (static_cast<int64_t>(values.size()) != userArgs_)
      raise(name_ + " takes " + std::to_string(userArgs_) +
            " argument(s), got " + std::to_string(values.size()));
    // Descriptors: 3 + 2 * rank words per buffer, one per index value, of
    // the user's arguments only, in one array: nothing here is made per
    // bound parameter, whose slots stay null (the runtime reads the bound
    // descriptor).
    std::vector<int64_t> words(userWords_);
    std::vector<at::Tensor> keep;
    keep.reserve(userPositions_.size());
    std::vector<void *> argPointers(args_.size(), nullptr);
    size_t used = 0;
    for (size_t user = 0; user < userPositions_.size(); ++user) {
      size_t position = userPositions_[user];
      const ArgSpec &spec = args_[position];
      py::handle value = values[user];
      int64_t *descriptor = words.data() + used;
      if (!spec.isBuffer) {
        if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()))
          raise(name_ + ": argument " + std::to_string(user) +
                " is an index; got " +
                py::str(py::type::of(value)).cast<std::string>());
        int overflow = 0;
        long long index = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
        if (overflow)
          raise(name_ + ": argument " + std::to_string(user) +
                " is an index; " + py::str(value).cast<std::string>() +
                " is outside int64");
        descriptor[0] = static_cast<int64_t>(index);
        argPointers[position] = descriptor;
        used += 1;
        continue;
      }
      if (!THPVariable_Check(value.ptr()))
        raise(name_ + ": argument " + std::to_string(user) +
              " must be a tensor; got " +
              py::str(py::type::of(value).attr("__name__"))
                  .cast<std::string>());
      at::Tensor tensor = THPVariable_Unpack(value.ptr());
      checkTensor(user, spec, tensor, value);
      // A negated or conjugated view shows other values than its memory
      // holds: resolved (a copy), as a strided view is copied.
      if (tensor.is_neg())
        tensor = tensor.resolve_neg();
      if (tensor.is_conj())
        tensor = tensor.resolve_conj();
      if (!tensor.is_contiguous())
        tensor = tensor.contiguous();
      auto address = reinterpret_cast<int64_t>(tensor.data_ptr());
      size_t rank = spec.shape.size();
      descriptor[0] = address;
      descriptor[1] = address;
      descriptor[2] = 0;
      // An empty tensor's strides are arbitrary (numpy's are 0): given as
      // row-major ones, which the entry takes.
      bool empty = tensor.numel() == 0;
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        descriptor[3 + d] = tensor.size(d);
        descriptor[3 + rank + d] = empty ? stride : tensor.stride(d);
        stride *= tensor.size(d);
      }
      argPointers[position] = descriptor;
      used += 3 + 2 * rank;
      keep.push_back(std::move(tensor));
    }
    checkWritten(values);
    std::vector<int64_t> resultWords(resultWords_, 0);
    std::vector<void *> resultPointers(results_.size());
    for (size_t i = 0; i < results_.size(); ++i)
      resultPointers[i] = resultWords.data() + resultOffsets_[i];
    int32_t status = 0;
    {
      py::gil_scoped_release release;
      auto numArgs = static_cast<int32_t>(argPointers.size());
      auto numResults = static_cast<int32_t>(resultPointers.size());
      status = cuda_ ? callOnStream_(artifact_, entry_, argPointers.data(),
                                     numArgs, resultPointers.data(),
                                     numResults,
                                     reinterpret_cast<void *>(stream))
                     : call_(artifact_, entry_, argPointers.data(), numArgs,
                             resultPointers.data(), numResults);
      // Results in host memory are read by the caller at once.
      if (status == 0 && anyHostResult_)
        status = synchronize_(program_);
    }
    if (status != 0)
      raise("call " + name_ + ": " + lastError_());
    std::vector<py::object> outputs;
    for (size_t i = 0; i < results_.size(); ++i)
      outputs.push_back(
          result(results_[i], resultWords.data() + resultOffsets_[i], keep));
    size_t written = mutatedInputs_.size();
    size_t kept = outputs.size() - written;
    for (size_t i = 0; i < written; ++i) {
      size_t user = userIndex(mutatedInputs_[i]);
      at::Tensor target = THPVariable_Unpack(values[user].ptr());
      try {
        target.copy_(THPVariable_Unpack(outputs[kept + i].ptr()));
      } catch (const c10::Error &error) {
        raise(name_ + ": argument " + std::to_string(user) +
              " cannot be written back (mutated_inputs): " +
              error.what_without_backtrace());
      }
    }
    outputs.resize(kept);
    if (outputs.size() == 1)
      return outputs.front();
    py::tuple tuple(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i)
      tuple[i] = outputs[i];
    return std::move(tuple);
  }

private:
  /// The position among the user's values of entry argument `position`.
  size_t userIndex(int64_t position) const {
    return std::lower_bound(userPositions_.begin(), userPositions_.end(),
                            static_cast<size_t>(position)) -
           userPositions_.begin();
  }

  /// The arguments the program writes in place (mutated_inputs), checked
  /// before the call as runtime.py's Entry._check_written checks them.
  void checkWritten(const py::args &values) const {
    for (int64_t position : mutatedInputs_) {
      size_t user = userIndex(position);
      at::Tensor tensor = THPVariable_Unpack(values[user].ptr());
      std::string which = name_ + ": argument " + std::to_string(user) +
                          " is written in place (mutated_inputs)";
      bool shared = false;
      for (int64_t d = 0; d < tensor.dim(); ++d)
        shared |= tensor.stride(d) == 0 && tensor.size(d) > 1;
      if (shared)
        raise(which + ", but elements of it share memory (sizes " +
              shapeText(tensor.sizes().vec(), false) + ", strides " +
              shapeText(tensor.strides().vec(), false) +
              "): pass a tensor of its own (.clone())");
      if (tensor.requires_grad() && at::GradMode::is_enabled())
        raise(which + " and requires grad: the artifact computes no "
                      "gradients; call it under torch.no_grad()");
      if (tensor.is_inference() && !c10::InferenceMode::is_enabled())
        raise(which + " and is an inference tensor, written only in "
                      "inference mode: call it under "
                      "torch.inference_mode(), or pass a clone");
    }
  }

  void checkTensor(size_t user, const ArgSpec &spec, const at::Tensor &tensor,
                   py::handle value) const {
    std::string which = name_ + ": argument " + std::to_string(user);
    if (tensor.layout() != at::kStrided)
      raise(which + " is a " +
            py::str(value.attr("layout")).cast<std::string>().substr(
                std::string("torch.").size()) +
            " tensor; entries take dense (strided) tensors");
    if (tensor.is_nested())
      raise(which + " is a nested tensor; entries take dense (strided) "
                    "tensors");
    if (tensor.scalar_type() != spec.dtype)
      raise(which + " is " + py::str(value.attr("dtype")).cast<std::string>() +
            "; the entry takes " + spec.elementType);
    bool shapeOk = tensor.dim() == static_cast<int64_t>(spec.shape.size());
    for (size_t d = 0; shapeOk && d < spec.shape.size(); ++d)
      shapeOk = spec.shape[d] < 0 || spec.shape[d] == tensor.size(d);
    if (!shapeOk)
      raise(which + " has shape " + shapeText(tensor.sizes().vec(), false) +
            "; the entry takes " + shapeText(spec.shape, true));
    if (tensor.is_meta())
      raise(which + " is a meta tensor, which holds no data");
    if (tensor.is_cuda() != cuda_)
      raise(which + " is on " + tensor.device().str() + "; a " +
            (cuda_ ? "cuda" : "host") + " artifact takes " +
            (cuda_ ? "CUDA" : "CPU") + " tensors");
    if (cuda_ && tensor.device().index() != device_)
      raise(which + " is on " + tensor.device().str() +
            "; the program runs on cuda:" + std::to_string(device_));
    // Sizes, strides and offset within the storage (one resized after the
    // tensor was made is not): the program reads or writes all of it.
    if (tensor.numel() > 0) {
      int64_t reach = tensor.storage_offset() + 1;
      for (int64_t d = 0; d < tensor.dim(); ++d)
        reach += (tensor.size(d) - 1) * tensor.stride(d);
      reach *= static_cast<int64_t>(tensor.element_size());
      int64_t held = tensor.has_storage()
                         ? static_cast<int64_t>(tensor.storage().nbytes())
                         : 0;
      if (reach > held)
        raise(which + ": its storage holds " + std::to_string(held) +
              " byte(s), but its sizes " +
              shapeText(tensor.sizes().vec(), false) + ", strides " +
              shapeText(tensor.strides().vec(), false) + " and offset " +
              std::to_string(tensor.storage_offset()) + " reach " +
              std::to_string(reach) +
              " (a storage resized after the tensor was made)");
    }
  }

  /// Result `spec` (its descriptor `words`): a fresh tensor, or with views
  /// a view of the program's memory; one in an argument's memory (the
  /// program returns what it was given) is a view that keeps that tensor
  /// alive, the argument being perhaps a copy made for this call.
  py::object result(const ResultSpec &spec, const int64_t *words,
                    const std::vector<at::Tensor> &arguments) const {
    if (!spec.isBuffer)
      return py::int_(words[0]);
    int64_t rank = spec.rank;
    std::vector<int64_t> sizes(words + 3, words + 3 + rank);
    std::vector<int64_t> strides(words + 3 + rank, words + 3 + 2 * rank);
    at::TensorOptions options = at::TensorOptions().dtype(spec.dtype);
    options = cuda_ && !spec.inHostMemory
                  ? options.device(at::kCUDA, static_cast<int>(device_))
                  : options.device(at::kCPU);
    int64_t elements = 1;
    for (int64_t size : sizes)
      elements *= size;
    at::Tensor tensor;
    if (elements == 0) {
      tensor = at::empty(sizes, options);
    } else {
      for (int64_t stride : strides)
        if (stride < 0)
          raise("call " + name_ + ": a result with negative strides");
      auto itemSize = static_cast<int64_t>(c10::elementSize(spec.dtype));
      auto *base = reinterpret_cast<char *>(words[1]) + words[2] * itemSize;
      const at::Tensor *owner = nullptr;
      if (views_) {
        int64_t extent = 1;
        for (int64_t d = 0; d < rank; ++d)
          extent += (sizes[d] - 1) * strides[d];
        for (const at::Tensor &argument : arguments) {
          auto *first = static_cast<char *>(argument.data_ptr());
          auto bytes = static_cast<int64_t>(argument.nbytes());
          if (base >= first && base + extent * itemSize <= first + bytes) {
            owner = &argument;
            break;
          }
        }
      }
      if (owner) {
        at::Tensor alive = *owner;
        tensor = at::from_blob(
            base, sizes, strides, [alive](void *) {}, options);
      } else {
        tensor = at::from_blob(base, sizes, strides, options);
      }
      if (!views_)
        tensor = tensor.clone(at::MemoryFormat::Contiguous);
    }
    return py::reinterpret_steal<py::object>(THPVariable_Wrap(tensor));
  }

  void *artifact_;
  void *program_;
  int32_t entry_;
  std::string name_;
  bool cuda_;
  int64_t device_;
  bool views_;
  std::vector<int64_t> mutatedInputs_;
  CallOnStreamFn callOnStream_ = nullptr;
  CallFn call_ = nullptr;
  LastErrorFn lastError_ = nullptr;
  SynchronizeFn synchronize_ = nullptr;
  std::vector<ArgSpec> args_;
  std::vector<ResultSpec> results_;
  int64_t userArgs_ = 0;
  /// The entry positions of the user's arguments, in order, and the words
  /// their descriptors take; where each result's words start.
  std::vector<size_t> userPositions_;
  size_t userWords_ = 0;
  std::vector<size_t> resultOffsets_;
  size_t resultWords_ = 0;
  bool anyHostResult_ = false;
};

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {
  module.def(
      "set_error_type",
      [](py::object type) {
        graphError = type.ptr();
        Py_INCREF(graphError);
      },
      "The exception type errors are raised as (graphpart.GraphError).");
  py::class_<BoundTensors>(module, "BoundTensors")
      .def(py::init<>())
      .def("set", &BoundTensors::set)
      .def("moved", &BoundTensors::moved);
  py::class_<EntryCaller>(module, "EntryCaller")
      .def(py::init<py::dict, int64_t, int64_t, int32_t, std::string, py::list,
                    py::list, bool, int64_t, bool, std::vector<int64_t>>())
      .def("call", &EntryCaller::call);
}
