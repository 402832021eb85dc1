/*
 * tests/compat_c_api/headertest_cxx.cc - every TensorFlow C API header
 * compiles as strict C++17 (-Wall -Wextra -pedantic-errors -Werror) and
 * the program links against tfsess.
 */
#include <tensorflow/c/eager/c_api.h>
#include <tensorflow/c/c_api.h>
#include <tensorflow/c/c_api_macros.h>
#include <tensorflow/c/tf_attrtype.h>
#include <tensorflow/c/tf_buffer.h>
#include <tensorflow/c/tf_datatype.h>
#include <tensorflow/c/tf_status.h>
#include <tensorflow/c/tf_tensor.h>
#include <tensorflow/c/tf_tstring.h>

#include <memory>

int main() {
  std::unique_ptr<TF_Status, decltype(&TF_DeleteStatus)> s(TF_NewStatus(),
                                                           TF_DeleteStatus);
  std::unique_ptr<TF_Graph, decltype(&TF_DeleteGraph)> g(TF_NewGraph(),
                                                         TF_DeleteGraph);
  TF_TString str;
  TF_TString_Init(&str);
  TF_TString_Copy(&str, "a longer string than the small form holds", 41);
  bool ok = TF_TString_GetType(&str) == TF_TSTR_LARGE &&
            TF_GetCode(s.get()) == TF_OK && sizeof(TF_TString) == 24;
  TF_TString_Dealloc(&str);
  TFE_ContextOptions *o = TFE_NewContextOptions();
  TFE_Context *ctx = TFE_NewContext(o, s.get());
  TFE_DeleteContextOptions(o);
  ok = ok && TF_GetCode(s.get()) == TF_OK;
  TFE_DeleteContext(ctx);
  return ok ? 0 : 1;
}
