/*
 * tests/compat_c_api/headertest_c.c - every TensorFlow C API header
 * compiles as strict C (-std=c99 -Wall -Wextra -pedantic-errors -Werror),
 * all in one file in an order that needs each to include what it uses,
 * and the program links against tfsess (headertest_each.sh compiles each
 * header alone).
 */
#include <tensorflow/c/tf_tstring.h>
#include <tensorflow/c/tf_attrtype.h>
#include <tensorflow/c/tf_buffer.h>
#include <tensorflow/c/tf_datatype.h>
#include <tensorflow/c/tf_status.h>
#include <tensorflow/c/tf_tensor.h>
#include <tensorflow/c/c_api_macros.h>
#include <tensorflow/c/c_api.h>
#include <tensorflow/c/eager/c_api.h>

#ifndef TENSORFLOW_C_TF_TSTRING_H_
#error "tf_tstring.h must define TENSORFLOW_C_TF_TSTRING_H_"
#endif

/* Programs take the addresses of entry points. */
static void (*const delete_status)(TF_Status *) = TF_DeleteStatus;

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_TString str;
  TF_TString_Init(&str);
  TF_TString_Copy(&str, "abc", 3);
  int ok = sizeof(TF_TString) == 24 && TF_TString_GetSize(&str) == 3 &&
           TF_GetCode(s) == TF_OK && TF_Version()[0] == '2';
  TF_TString_Dealloc(&str);
  TF_DeleteGraph(g);
  delete_status(s);
  return ok ? 0 : 1;
}
