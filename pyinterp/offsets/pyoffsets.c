/* Prints, as JSON, the offsets of the CPython structure members tmpprobe
 * reads, computed by the C compiler from an interpreter's own installed
 * headers (Include/ and Include/internal/, built with Py_BUILD_CORE).
 * gen.sh runs it once per minor version and the output is committed as
 * <ver>.json, so tmpprobe needs neither a compiler nor the headers. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"
#include "internal/pycore_code.h"
#else
#include "internal/pycore_pystate.h"
#include <frameobject.h>
#endif
#if PY_VERSION_HEX >= 0x03090000 && PY_VERSION_HEX < 0x030B0000
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"
#endif

#define F(name, expr) printf("  \"%s\": %zu,\n", name, (size_t)(expr))

int main(void)
{
	printf("{\n");
	printf("  \"version\": \"%d.%d\",\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	F("runtime_interpreters_head", offsetof(_PyRuntimeState, interpreters.head));
	F("interp_next", offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX >= 0x030B0000
	F("interp_threads_head", offsetof(PyInterpreterState, threads.head));
#else
	F("interp_threads_head", offsetof(PyInterpreterState, tstate_head));
#endif
	F("tstate_next", offsetof(PyThreadState, next));
	F("tstate_interp", offsetof(PyThreadState, interp));
	F("tstate_thread_id", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030B0000
	F("tstate_native_thread_id", offsetof(PyThreadState, native_thread_id));
#else
	F("tstate_native_thread_id", 0); /* absent before 3.11 */
#endif
#if PY_VERSION_HEX >= 0x030D0000
	F("tstate_frame", offsetof(PyThreadState, current_frame));
	F("cframe_current_frame", 0); /* no _PyCFrame since 3.13 */
	F("tstate_frame_is_cframe", 0);
#elif PY_VERSION_HEX >= 0x030B0000
	F("tstate_frame", offsetof(PyThreadState, cframe));
	F("cframe_current_frame", offsetof(_PyCFrame, current_frame));
	F("tstate_frame_is_cframe", 1);
#else
	F("tstate_frame", offsetof(PyThreadState, frame));
	F("cframe_current_frame", 0);
	F("tstate_frame_is_cframe", 0);
#endif
#if PY_VERSION_HEX >= 0x030B0000
	F("frame_is_interpreter_frame", 1);
	F("frame_previous", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030D0000
	F("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	F("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	F("frame_code", offsetof(_PyInterpreterFrame, f_code));
	F("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
	F("frame_owner", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX >= 0x030C0000
	F("frame_owner_cstack", FRAME_OWNED_BY_CSTACK);
#else
	F("frame_owner_cstack", 255); /* no shim frames in 3.11 */
#endif
	F("code_co_code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
	F("code_qualname", offsetof(PyCodeObject, co_qualname));
	F("code_linetable", offsetof(PyCodeObject, co_linetable));
	F("code_firsttraceable", offsetof(PyCodeObject, _co_firsttraceable));
#else
	F("frame_is_interpreter_frame", 0);
	F("frame_previous", offsetof(PyFrameObject, f_back));
	F("frame_code", offsetof(PyFrameObject, f_code));
	F("frame_instr", offsetof(PyFrameObject, f_lasti));
	F("frame_owner", 0);
	F("frame_owner_cstack", 255);
	F("code_co_code_adaptive", 0);
	F("code_qualname", 0); /* co_qualname is new in 3.11 */
#if PY_VERSION_HEX >= 0x030A0000
	F("code_linetable", offsetof(PyCodeObject, co_linetable));
#else
	F("code_linetable", offsetof(PyCodeObject, co_lnotab));
#endif
	F("code_firsttraceable", 0);
#endif
	F("code_filename", offsetof(PyCodeObject, co_filename));
	F("code_name", offsetof(PyCodeObject, co_name));
	F("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	F("object_type", offsetof(PyObject, ob_type));
	F("varobject_size", offsetof(PyVarObject, ob_size));
	F("bytes_sval", offsetof(PyBytesObject, ob_sval));
	F("unicode_length", offsetof(PyASCIIObject, length));
	F("unicode_state", offsetof(PyASCIIObject, state));
	F("unicode_ascii_size", sizeof(PyASCIIObject));
	F("unicode_compact_size", sizeof(PyCompactUnicodeObject));
	printf("  \"end\": 0\n}\n");
	return 0;
}
