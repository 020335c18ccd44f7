/*
 * JNI shim between io.hami.nodeagent.nvml.NvmlNatives and NVML.
 *
 * libnvidia-ml.so.1 is opened with dlopen at run time and only the functions below are
 * declared, so this file builds and loads on hosts without any NVIDIA software. Every NVML
 * failure becomes an io.hami.nodeagent.nvml.NvmlException(code, message).
 */
#include <dlfcn.h>
#include <jni.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the subset of nvml.h this shim uses (public NVML API) ---- */

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
typedef void *nvmlEventSet_t;
typedef void *nvmlGpuInstance_t;
typedef void *nvmlComputeInstance_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_TIMEOUT 10
#define NVML_FEATURE_ENABLED 1
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_EVENT_TYPE_XID_CRITICAL_ERROR 0x8ULL
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_GPU_INSTANCE_PROFILE_COUNT 17
#define NVML_COMPUTE_INSTANCE_PROFILE_COUNT 9
#define NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED 0
#define MIG_MAX_INSTANCES 32 /* per profile; NVML reports at most 8 */

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

/* MIG (nvml.h, API version 11+). */
typedef struct {
  unsigned int start;
  unsigned int size;
} nvmlGpuInstancePlacement_t;

typedef struct {
  unsigned int id;
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;

typedef struct {
  nvmlDevice_t device;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;

typedef struct {
  unsigned int id;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;

typedef struct {
  unsigned int start;
  unsigned int size;
} nvmlComputeInstancePlacement_t;

typedef struct {
  nvmlDevice_t device;
  nvmlGpuInstance_t gpuInstance;
  unsigned int id;
  unsigned int profileId;
  nvmlComputeInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;

/* Shim-level codes for failures that are not NVML return values. */
#define SHIM_NOT_LOADED (-1)
#define SHIM_JAVA_ERROR (-2)

static struct {
  void *lib;
  nvmlReturn_t (*init)(void);
  nvmlReturn_t (*shutdown)(void);
  const char *(*errorString)(nvmlReturn_t);
  nvmlReturn_t (*systemGetDriverVersion)(char *, unsigned int);
  nvmlReturn_t (*deviceGetCount)(unsigned int *);
  nvmlReturn_t (*deviceGetHandleByIndex)(unsigned int, nvmlDevice_t *);
  nvmlReturn_t (*deviceGetIndex)(nvmlDevice_t, unsigned int *);
  nvmlReturn_t (*deviceGetUUID)(nvmlDevice_t, char *, unsigned int);
  nvmlReturn_t (*deviceGetName)(nvmlDevice_t, char *, unsigned int);
  nvmlReturn_t (*deviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *);
  nvmlReturn_t (*deviceGetPciInfo)(nvmlDevice_t, nvmlPciInfo_t *);
  nvmlReturn_t (*deviceGetMigMode)(nvmlDevice_t, unsigned int *, unsigned int *);
  nvmlReturn_t (*deviceGetTopologyCommonAncestor)(nvmlDevice_t, nvmlDevice_t, int *);
  nvmlReturn_t (*deviceGetNvLinkState)(nvmlDevice_t, unsigned int, int *);
  nvmlReturn_t (*deviceGetNvLinkRemotePciInfo)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
  nvmlReturn_t (*eventSetCreate)(nvmlEventSet_t *);
  nvmlReturn_t (*deviceGetSupportedEventTypes)(nvmlDevice_t, unsigned long long *);
  nvmlReturn_t (*deviceRegisterEvents)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
  nvmlReturn_t (*eventSetWait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
  nvmlReturn_t (*eventSetFree)(nvmlEventSet_t);
  /* Optional, NULL on drivers without it (the monitor then goes without NVML samples). */
  nvmlReturn_t (*deviceGetProcessUtilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
                                              unsigned int *, unsigned long long);
  /* MIG: optional, NULL on drivers without them (only MIG calls fail then). */
  nvmlReturn_t (*deviceGetGpuInstanceProfileInfo)(nvmlDevice_t, unsigned int,
                                                  nvmlGpuInstanceProfileInfo_t *);
  nvmlReturn_t (*deviceGetGpuInstancePossiblePlacements)(nvmlDevice_t, unsigned int,
                                                         nvmlGpuInstancePlacement_t *,
                                                         unsigned int *);
  nvmlReturn_t (*deviceCreateGpuInstanceWithPlacement)(nvmlDevice_t, unsigned int,
                                                       const nvmlGpuInstancePlacement_t *,
                                                       nvmlGpuInstance_t *);
  nvmlReturn_t (*deviceGetGpuInstances)(nvmlDevice_t, unsigned int, nvmlGpuInstance_t *,
                                        unsigned int *);
  nvmlReturn_t (*deviceGetGpuInstanceById)(nvmlDevice_t, unsigned int, nvmlGpuInstance_t *);
  nvmlReturn_t (*gpuInstanceGetInfo)(nvmlGpuInstance_t, nvmlGpuInstanceInfo_t *);
  nvmlReturn_t (*gpuInstanceGetComputeInstanceProfileInfo)(nvmlGpuInstance_t, unsigned int,
                                                           unsigned int,
                                                           nvmlComputeInstanceProfileInfo_t *);
  nvmlReturn_t (*gpuInstanceCreateComputeInstance)(nvmlGpuInstance_t, unsigned int,
                                                   nvmlComputeInstance_t *);
  nvmlReturn_t (*gpuInstanceGetComputeInstanceById)(nvmlGpuInstance_t, unsigned int,
                                                    nvmlComputeInstance_t *);
  nvmlReturn_t (*computeInstanceGetInfo)(nvmlComputeInstance_t, nvmlComputeInstanceInfo_t *);
  nvmlReturn_t (*computeInstanceDestroy)(nvmlComputeInstance_t);
  nvmlReturn_t (*gpuInstanceDestroy)(nvmlGpuInstance_t);
  nvmlReturn_t (*deviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned int *);
  nvmlReturn_t (*deviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
  nvmlReturn_t (*deviceGetGpuInstanceId)(nvmlDevice_t, unsigned int *);
  nvmlReturn_t (*deviceGetComputeInstanceId)(nvmlDevice_t, unsigned int *);
} nvml;

static jclass exceptionClass;     /* global ref to NvmlException */
static jmethodID exceptionInit;   /* NvmlException(int, String) */

static void throwNvml(JNIEnv *env, int code, const char *what) {
  char msg[256];
  const char *reason;
  if (code == SHIM_NOT_LOADED) {
    reason = "NVML not available";
  } else if (nvml.errorString != NULL) {
    reason = nvml.errorString(code);
  } else {
    reason = "unknown error";
  }
  snprintf(msg, sizeof(msg), "%s: %s", what, reason == NULL ? "unknown error" : reason);
  jstring jmsg = (*env)->NewStringUTF(env, msg);
  if (jmsg == NULL) {
    return; /* OutOfMemoryError pending */
  }
  jobject ex = (*env)->NewObject(env, exceptionClass, exceptionInit, (jint) code, jmsg);
  if (ex != NULL) {
    (*env)->Throw(env, (jthrowable) ex);
  }
}

/* Returns 1 when the call succeeded; otherwise an exception is pending. */
static int check(JNIEnv *env, nvmlReturn_t rc, const char *what) {
  if (rc == NVML_SUCCESS) {
    return 1;
  }
  throwNvml(env, rc, what);
  return 0;
}

static int loaded(JNIEnv *env, const char *what) {
  if (nvml.lib == NULL) {
    throwNvml(env, SHIM_NOT_LOADED, what);
    return 0;
  }
  return 1;
}

#define BIND(field, symbol)                                   \
  do {                                                        \
    *(void **) (&nvml.field) = dlsym(nvml.lib, symbol);       \
    if (nvml.field == NULL) {                                 \
      missing = symbol;                                       \
      goto error;                                             \
    }                                                         \
  } while (0)

/* Binds a symbol that older drivers may lack; the field stays NULL then. */
#define BIND_OPTIONAL(field, symbol) \
  do { \
    *(void **) (&nvml.field) = dlsym(nvml.lib, symbol); \
  } while (0)

/* Opens NVML and binds the symbols. Returns null, or a message saying why NVML is not usable. */
static jstring JNICALL nativeLoad(JNIEnv *env, jclass clazz, jstring jpath) {
  (void) clazz;
  char msg[512];
  const char *missing = NULL;
  if (nvml.lib != NULL) {
    return NULL;
  }
  const char *path = (*env)->GetStringUTFChars(env, jpath, NULL);
  if (path == NULL) {
    return NULL;
  }
  nvml.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (nvml.lib == NULL) {
    const char *err = dlerror();
    snprintf(msg, sizeof(msg), "NVML not available: %s", err == NULL ? path : err);
    (*env)->ReleaseStringUTFChars(env, jpath, path);
    return (*env)->NewStringUTF(env, msg);
  }
  (*env)->ReleaseStringUTFChars(env, jpath, path);
  BIND(init, "nvmlInit_v2");
  BIND(shutdown, "nvmlShutdown");
  BIND(errorString, "nvmlErrorString");
  BIND(systemGetDriverVersion, "nvmlSystemGetDriverVersion");
  BIND(deviceGetCount, "nvmlDeviceGetCount_v2");
  BIND(deviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2");
  BIND(deviceGetIndex, "nvmlDeviceGetIndex");
  BIND(deviceGetUUID, "nvmlDeviceGetUUID");
  BIND(deviceGetName, "nvmlDeviceGetName");
  BIND(deviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
  BIND(deviceGetPciInfo, "nvmlDeviceGetPciInfo_v3");
  BIND(deviceGetMigMode, "nvmlDeviceGetMigMode");
  BIND(deviceGetTopologyCommonAncestor, "nvmlDeviceGetTopologyCommonAncestor");
  BIND(deviceGetNvLinkState, "nvmlDeviceGetNvLinkState");
  BIND(deviceGetNvLinkRemotePciInfo, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  BIND(eventSetCreate, "nvmlEventSetCreate");
  BIND(deviceGetSupportedEventTypes, "nvmlDeviceGetSupportedEventTypes");
  BIND(deviceRegisterEvents, "nvmlDeviceRegisterEvents");
  BIND(eventSetWait, "nvmlEventSetWait_v2");
  BIND(eventSetFree, "nvmlEventSetFree");
  BIND_OPTIONAL(deviceGetProcessUtilization, "nvmlDeviceGetProcessUtilization");
  BIND_OPTIONAL(deviceGetGpuInstanceProfileInfo, "nvmlDeviceGetGpuInstanceProfileInfo");
  BIND_OPTIONAL(deviceGetGpuInstancePossiblePlacements,
                "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
  BIND_OPTIONAL(deviceCreateGpuInstanceWithPlacement, "nvmlDeviceCreateGpuInstanceWithPlacement");
  BIND_OPTIONAL(deviceGetGpuInstances, "nvmlDeviceGetGpuInstances");
  BIND_OPTIONAL(deviceGetGpuInstanceById, "nvmlDeviceGetGpuInstanceById");
  BIND_OPTIONAL(gpuInstanceGetInfo, "nvmlGpuInstanceGetInfo");
  BIND_OPTIONAL(gpuInstanceGetComputeInstanceProfileInfo,
                "nvmlGpuInstanceGetComputeInstanceProfileInfo");
  BIND_OPTIONAL(gpuInstanceCreateComputeInstance, "nvmlGpuInstanceCreateComputeInstance");
  BIND_OPTIONAL(gpuInstanceGetComputeInstanceById, "nvmlGpuInstanceGetComputeInstanceById");
  BIND_OPTIONAL(computeInstanceGetInfo, "nvmlComputeInstanceGetInfo_v2");
  BIND_OPTIONAL(computeInstanceDestroy, "nvmlComputeInstanceDestroy");
  BIND_OPTIONAL(gpuInstanceDestroy, "nvmlGpuInstanceDestroy");
  BIND_OPTIONAL(deviceGetMaxMigDeviceCount, "nvmlDeviceGetMaxMigDeviceCount");
  BIND_OPTIONAL(deviceGetMigDeviceHandleByIndex, "nvmlDeviceGetMigDeviceHandleByIndex");
  BIND_OPTIONAL(deviceGetGpuInstanceId, "nvmlDeviceGetGpuInstanceId");
  BIND_OPTIONAL(deviceGetComputeInstanceId, "nvmlDeviceGetComputeInstanceId");
  return NULL;

error:
  snprintf(msg, sizeof(msg), "NVML not available: %s lacks %s", "libnvidia-ml", missing);
  dlclose(nvml.lib);
  memset(&nvml, 0, sizeof(nvml));
  return (*env)->NewStringUTF(env, msg);
}

static void JNICALL nativeInit(JNIEnv *env, jclass clazz) {
  (void) clazz;
  if (loaded(env, "nvmlInit")) {
    check(env, nvml.init(), "nvmlInit");
  }
}

static void JNICALL nativeShutdown(JNIEnv *env, jclass clazz) {
  (void) clazz;
  if (loaded(env, "nvmlShutdown")) {
    check(env, nvml.shutdown(), "nvmlShutdown");
  }
}

static jstring JNICALL nativeDriverVersion(JNIEnv *env, jclass clazz) {
  (void) clazz;
  char buf[96];
  if (!loaded(env, "nvmlSystemGetDriverVersion")
      || !check(env, nvml.systemGetDriverVersion(buf, sizeof(buf)), "nvmlSystemGetDriverVersion")) {
    return NULL;
  }
  return (*env)->NewStringUTF(env, buf);
}

static jint JNICALL nativeDeviceCount(JNIEnv *env, jclass clazz) {
  (void) clazz;
  unsigned int count = 0;
  if (!loaded(env, "nvmlDeviceGetCount")
      || !check(env, nvml.deviceGetCount(&count), "nvmlDeviceGetCount")) {
    return -1;
  }
  return (jint) count;
}

static jlong JNICALL nativeHandle(JNIEnv *env, jclass clazz, jint index) {
  (void) clazz;
  nvmlDevice_t dev = NULL;
  if (!loaded(env, "nvmlDeviceGetHandleByIndex")
      || !check(env, nvml.deviceGetHandleByIndex((unsigned int) index, &dev),
                "nvmlDeviceGetHandleByIndex")) {
    return 0;
  }
  return (jlong) (intptr_t) dev;
}

static jstring JNICALL nativeUuid(JNIEnv *env, jclass clazz, jlong handle) {
  (void) clazz;
  char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  if (!loaded(env, "nvmlDeviceGetUUID")
      || !check(env, nvml.deviceGetUUID((nvmlDevice_t) (intptr_t) handle, buf, sizeof(buf)),
                "nvmlDeviceGetUUID")) {
    return NULL;
  }
  return (*env)->NewStringUTF(env, buf);
}

static jstring JNICALL nativeName(JNIEnv *env, jclass clazz, jlong handle) {
  (void) clazz;
  char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  if (!loaded(env, "nvmlDeviceGetName")
      || !check(env, nvml.deviceGetName((nvmlDevice_t) (intptr_t) handle, buf, sizeof(buf)),
                "nvmlDeviceGetName")) {
    return NULL;
  }
  return (*env)->NewStringUTF(env, buf);
}

/* Total memory in bytes, or -1 when the device does not report it (unified memory). */
static jlong JNICALL nativeMemoryTotal(JNIEnv *env, jclass clazz, jlong handle) {
  (void) clazz;
  nvmlMemory_t mem;
  if (!loaded(env, "nvmlDeviceGetMemoryInfo")) {
    return -1;
  }
  nvmlReturn_t rc = nvml.deviceGetMemoryInfo((nvmlDevice_t) (intptr_t) handle, &mem);
  if (rc == NVML_ERROR_NOT_SUPPORTED) {
    return -1;
  }
  if (!check(env, rc, "nvmlDeviceGetMemoryInfo")) {
    return -1;
  }
  return (jlong) mem.total;
}

static jstring JNICALL nativePciBusId(JNIEnv *env, jclass clazz, jlong handle) {
  (void) clazz;
  nvmlPciInfo_t pci;
  memset(&pci, 0, sizeof(pci));
  if (!loaded(env, "nvmlDeviceGetPciInfo")
      || !check(env, nvml.deviceGetPciInfo((nvmlDevice_t) (intptr_t) handle, &pci),
                "nvmlDeviceGetPciInfo")) {
    return NULL;
  }
  pci.busId[sizeof(pci.busId) - 1] = '\0';
  return (*env)->NewStringUTF(env, pci.busId);
}

/* 1 when MIG mode is enabled, 0 when disabled or not supported. */
static jint JNICALL nativeMigEnabled(JNIEnv *env, jclass clazz, jlong handle) {
  (void) clazz;
  unsigned int current = 0;
  unsigned int pending = 0;
  if (!loaded(env, "nvmlDeviceGetMigMode")) {
    return 0;
  }
  nvmlReturn_t rc = nvml.deviceGetMigMode((nvmlDevice_t) (intptr_t) handle, &current, &pending);
  if (rc == NVML_ERROR_NOT_SUPPORTED) {
    return 0;
  }
  if (!check(env, rc, "nvmlDeviceGetMigMode")) {
    return 0;
  }
  return current == NVML_FEATURE_ENABLED ? 1 : 0;
}

static jint JNICALL nativeCommonAncestor(JNIEnv *env, jclass clazz, jlong a, jlong b) {
  (void) clazz;
  int level = 0;
  if (!loaded(env, "nvmlDeviceGetTopologyCommonAncestor")
      || !check(env,
                nvml.deviceGetTopologyCommonAncestor((nvmlDevice_t) (intptr_t) a,
                                                     (nvmlDevice_t) (intptr_t) b, &level),
                "nvmlDeviceGetTopologyCommonAncestor")) {
    return -1;
  }
  return (jint) level;
}

/* Number of active NVLinks from device a whose remote end has PCI bus id remoteBusId. */
static jint JNICALL nativeNvLinksTo(JNIEnv *env, jclass clazz, jlong a, jstring jremote) {
  (void) clazz;
  if (!loaded(env, "nvmlDeviceGetNvLinkState")) {
    return 0;
  }
  const char *remote = (*env)->GetStringUTFChars(env, jremote, NULL);
  if (remote == NULL) {
    return 0;
  }
  int links = 0;
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
    int active = 0;
    if (nvml.deviceGetNvLinkState((nvmlDevice_t) (intptr_t) a, link, &active) != NVML_SUCCESS
        || active != NVML_FEATURE_ENABLED) {
      continue;
    }
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof(pci));
    if (nvml.deviceGetNvLinkRemotePciInfo((nvmlDevice_t) (intptr_t) a, link, &pci) != NVML_SUCCESS) {
      continue;
    }
    pci.busId[sizeof(pci.busId) - 1] = '\0';
    if (strcasecmp(pci.busId, remote) == 0) {
      links++;
    }
  }
  (*env)->ReleaseStringUTFChars(env, jremote, remote);
  return links;
}

static jlong JNICALL nativeEventSetCreate(JNIEnv *env, jclass clazz) {
  (void) clazz;
  nvmlEventSet_t set = NULL;
  if (!loaded(env, "nvmlEventSetCreate")
      || !check(env, nvml.eventSetCreate(&set), "nvmlEventSetCreate")) {
    return 0;
  }
  return (jlong) (intptr_t) set;
}

/* Registers XID critical errors for a device; false when the device does not support them. */
static jboolean JNICALL nativeRegisterXid(JNIEnv *env, jclass clazz, jlong set, jlong handle) {
  (void) clazz;
  unsigned long long supported = 0;
  if (!loaded(env, "nvmlDeviceRegisterEvents")) {
    return JNI_FALSE;
  }
  nvmlDevice_t dev = (nvmlDevice_t) (intptr_t) handle;
  nvmlReturn_t rc = nvml.deviceGetSupportedEventTypes(dev, &supported);
  if (rc == NVML_ERROR_NOT_SUPPORTED || (rc == NVML_SUCCESS
      && (supported & NVML_EVENT_TYPE_XID_CRITICAL_ERROR) == 0)) {
    return JNI_FALSE;
  }
  if (!check(env, rc, "nvmlDeviceGetSupportedEventTypes")) {
    return JNI_FALSE;
  }
  rc = nvml.deviceRegisterEvents(dev, NVML_EVENT_TYPE_XID_CRITICAL_ERROR,
                                 (nvmlEventSet_t) (intptr_t) set);
  if (rc == NVML_ERROR_NOT_SUPPORTED) {
    return JNI_FALSE;
  }
  return check(env, rc, "nvmlDeviceRegisterEvents") ? JNI_TRUE : JNI_FALSE;
}

/*
 * Waits up to timeoutMs for one event. Returns null on timeout, otherwise
 * {device index, event type, event data (the XID)}.
 */
static jlongArray JNICALL nativeEventWait(JNIEnv *env, jclass clazz, jlong set, jint timeoutMs) {
  (void) clazz;
  nvmlEventData_t data;
  memset(&data, 0, sizeof(data));
  if (!loaded(env, "nvmlEventSetWait")) {
    return NULL;
  }
  nvmlReturn_t rc = nvml.eventSetWait((nvmlEventSet_t) (intptr_t) set, &data,
                                      (unsigned int) timeoutMs);
  if (rc == NVML_ERROR_TIMEOUT) {
    return NULL;
  }
  if (!check(env, rc, "nvmlEventSetWait")) {
    return NULL;
  }
  unsigned int index = 0;
  jlong out[3];
  out[0] = nvml.deviceGetIndex(data.device, &index) == NVML_SUCCESS ? (jlong) index : -1;
  out[1] = (jlong) data.eventType;
  out[2] = (jlong) data.eventData;
  jlongArray arr = (*env)->NewLongArray(env, 3);
  if (arr != NULL) {
    (*env)->SetLongArrayRegion(env, arr, 0, 3, out);
  }
  return arr;
}

static void JNICALL nativeEventSetFree(JNIEnv *env, jclass clazz, jlong set) {
  (void) clazz;
  if (loaded(env, "nvmlEventSetFree")) {
    check(env, nvml.eventSetFree((nvmlEventSet_t) (intptr_t) set), "nvmlEventSetFree");
  }
}

/* ---- MIG ---- */

/* Throws unless NVML is loaded and fn (a MIG function) was found in it. */
static int migBound(JNIEnv *env, const void *fn, const char *what) {
  if (!loaded(env, what)) {
    return 0;
  }
  if (fn == NULL) {
    char msg[160];
    snprintf(msg, sizeof(msg), "%s (not in this driver's libnvidia-ml)", what);
    throwNvml(env, NVML_ERROR_FUNCTION_NOT_FOUND, msg);
    return 0;
  }
  return 1;
}

static jintArray intArray(JNIEnv *env, const jint *values, jsize n) {
  jintArray arr = (*env)->NewIntArray(env, n);
  if (arr != NULL && n > 0) {
    (*env)->SetIntArrayRegion(env, arr, 0, n, values);
  }
  return arr;
}

/* {id, sliceCount, instanceCount, memoryMB} of profile index p, or null when not offered. */
static jlongArray JNICALL nativeMigProfile(JNIEnv *env, jclass clazz, jlong handle, jint p) {
  (void) clazz;
  nvmlGpuInstanceProfileInfo_t info;
  memset(&info, 0, sizeof(info));
  if (!migBound(env, (const void *) nvml.deviceGetGpuInstanceProfileInfo,
                "nvmlDeviceGetGpuInstanceProfileInfo")) {
    return NULL;
  }
  nvmlReturn_t rc = nvml.deviceGetGpuInstanceProfileInfo((nvmlDevice_t) (intptr_t) handle,
                                                         (unsigned int) p, &info);
  if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT
      || rc == NVML_ERROR_NOT_FOUND) {
    return NULL;
  }
  if (!check(env, rc, "nvmlDeviceGetGpuInstanceProfileInfo")) {
    return NULL;
  }
  jlong out[4] = {(jlong) info.id, (jlong) info.sliceCount, (jlong) info.instanceCount,
                  (jlong) info.memorySizeMB};
  jlongArray arr = (*env)->NewLongArray(env, 4);
  if (arr != NULL) {
    (*env)->SetLongArrayRegion(env, arr, 0, 4, out);
  }
  return arr;
}

static jintArray JNICALL nativeMigPlacements(JNIEnv *env, jclass clazz, jlong handle,
                                             jint profileId) {
  (void) clazz;
  nvmlGpuInstancePlacement_t at[MIG_MAX_INSTANCES];
  jint flat[2 * MIG_MAX_INSTANCES];
  unsigned int count = MIG_MAX_INSTANCES;
  if (!migBound(env, (const void *) nvml.deviceGetGpuInstancePossiblePlacements,
                "nvmlDeviceGetGpuInstancePossiblePlacements")) {
    return NULL;
  }
  memset(at, 0, sizeof(at));
  if (!check(env,
             nvml.deviceGetGpuInstancePossiblePlacements((nvmlDevice_t) (intptr_t) handle,
                                                         (unsigned int) profileId, at, &count),
             "nvmlDeviceGetGpuInstancePossiblePlacements")) {
    return NULL;
  }
  if (count > MIG_MAX_INSTANCES) {
    count = MIG_MAX_INSTANCES;
  }
  for (unsigned int i = 0; i < count; i++) {
    flat[2 * i] = (jint) at[i].start;
    flat[2 * i + 1] = (jint) at[i].size;
  }
  return intArray(env, flat, (jsize) (2 * count));
}

/* The compute instance id of the MIG device on GPU instance gi, or -1; uuid filled when given. */
static int migDeviceOf(nvmlDevice_t dev, unsigned int gi, int wantCi, char *uuid, size_t len) {
  unsigned int max = 0;
  if (nvml.deviceGetMaxMigDeviceCount == NULL || nvml.deviceGetMigDeviceHandleByIndex == NULL
      || nvml.deviceGetGpuInstanceId == NULL || nvml.deviceGetComputeInstanceId == NULL
      || nvml.deviceGetMaxMigDeviceCount(dev, &max) != NVML_SUCCESS) {
    return -1;
  }
  for (unsigned int i = 0; i < max; i++) {
    nvmlDevice_t mig = NULL;
    unsigned int g = 0;
    unsigned int c = 0;
    if (nvml.deviceGetMigDeviceHandleByIndex(dev, i, &mig) != NVML_SUCCESS
        || nvml.deviceGetGpuInstanceId(mig, &g) != NVML_SUCCESS || g != gi
        || nvml.deviceGetComputeInstanceId(mig, &c) != NVML_SUCCESS
        || (wantCi >= 0 && c != (unsigned int) wantCi)) {
      continue;
    }
    if (uuid != NULL && nvml.deviceGetUUID(mig, uuid, (unsigned int) len) != NVML_SUCCESS) {
      return -1;
    }
    return (int) c;
  }
  return -1;
}

/* Creates a GPU instance at a placement and one compute instance spanning it: {GI id, CI id}. */
static jintArray JNICALL nativeMigCreate(JNIEnv *env, jclass clazz, jlong handle, jint profileId,
                                         jint start, jint size) {
  (void) clazz;
  nvmlDevice_t dev = (nvmlDevice_t) (intptr_t) handle;
  nvmlGpuInstance_t gi = NULL;
  nvmlComputeInstance_t ci = NULL;
  nvmlGpuInstanceInfo_t giInfo;
  nvmlComputeInstanceInfo_t ciInfo;
  nvmlComputeInstanceProfileInfo_t best;
  nvmlGpuInstancePlacement_t at;
  unsigned int bestSlices = 0;
  nvmlReturn_t rc;
  const char *failed = NULL;
  if (!migBound(env, (const void *) nvml.deviceCreateGpuInstanceWithPlacement,
                "nvmlDeviceCreateGpuInstanceWithPlacement")
      || !migBound(env, (const void *) nvml.gpuInstanceGetInfo, "nvmlGpuInstanceGetInfo")
      || !migBound(env, (const void *) nvml.gpuInstanceGetComputeInstanceProfileInfo,
                   "nvmlGpuInstanceGetComputeInstanceProfileInfo")
      || !migBound(env, (const void *) nvml.gpuInstanceCreateComputeInstance,
                   "nvmlGpuInstanceCreateComputeInstance")
      || !migBound(env, (const void *) nvml.computeInstanceGetInfo,
                   "nvmlComputeInstanceGetInfo")
      || !migBound(env, (const void *) nvml.gpuInstanceDestroy, "nvmlGpuInstanceDestroy")) {
    return NULL;
  }
  at.start = (unsigned int) start;
  at.size = (unsigned int) size;
  rc = nvml.deviceCreateGpuInstanceWithPlacement(dev, (unsigned int) profileId, &at, &gi);
  if (!check(env, rc, "nvmlDeviceCreateGpuInstanceWithPlacement")) {
    return NULL;
  }
  memset(&giInfo, 0, sizeof(giInfo));
  rc = nvml.gpuInstanceGetInfo(gi, &giInfo);
  if (rc != NVML_SUCCESS) {
    failed = "nvmlGpuInstanceGetInfo";
    goto error;
  }
  /* The compute instance profile with the most slices the GPU instance offers spans all of it. */
  memset(&best, 0, sizeof(best));
  for (unsigned int p = 0; p < NVML_COMPUTE_INSTANCE_PROFILE_COUNT; p++) {
    nvmlComputeInstanceProfileInfo_t info;
    memset(&info, 0, sizeof(info));
    if (nvml.gpuInstanceGetComputeInstanceProfileInfo(
            gi, p, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &info) == NVML_SUCCESS
        && info.sliceCount > bestSlices) {
      best = info;
      bestSlices = info.sliceCount;
    }
  }
  if (bestSlices == 0) {
    rc = NVML_ERROR_NOT_FOUND;
    failed = "nvmlGpuInstanceGetComputeInstanceProfileInfo";
    goto error;
  }
  rc = nvml.gpuInstanceCreateComputeInstance(gi, best.id, &ci);
  if (rc != NVML_SUCCESS) {
    failed = "nvmlGpuInstanceCreateComputeInstance";
    goto error;
  }
  memset(&ciInfo, 0, sizeof(ciInfo));
  rc = nvml.computeInstanceGetInfo(ci, &ciInfo);
  if (rc != NVML_SUCCESS) {
    failed = "nvmlComputeInstanceGetInfo";
    goto error;
  }
  jint out[2] = {(jint) giInfo.id, (jint) ciInfo.id};
  return intArray(env, out, 2);

error:
  if (ci != NULL && nvml.computeInstanceDestroy != NULL) {
    nvml.computeInstanceDestroy(ci);
  }
  nvml.gpuInstanceDestroy(gi);
  throwNvml(env, rc, failed);
  return NULL;
}

/* {GI id, profile id, start, size, CI id (-1 when none)} per GPU instance. */
static jintArray JNICALL nativeMigInstances(JNIEnv *env, jclass clazz, jlong handle) {
  (void) clazz;
  nvmlDevice_t dev = (nvmlDevice_t) (intptr_t) handle;
  jint flat[5 * MIG_MAX_INSTANCES];
  jsize n = 0;
  if (!migBound(env, (const void *) nvml.deviceGetGpuInstanceProfileInfo,
                "nvmlDeviceGetGpuInstanceProfileInfo")
      || !migBound(env, (const void *) nvml.deviceGetGpuInstances, "nvmlDeviceGetGpuInstances")
      || !migBound(env, (const void *) nvml.gpuInstanceGetInfo, "nvmlGpuInstanceGetInfo")) {
    return NULL;
  }
  for (unsigned int p = 0; p < NVML_GPU_INSTANCE_PROFILE_COUNT; p++) {
    nvmlGpuInstanceProfileInfo_t prof;
    nvmlGpuInstance_t gis[MIG_MAX_INSTANCES];
    unsigned int count = 0;
    memset(&prof, 0, sizeof(prof));
    if (nvml.deviceGetGpuInstanceProfileInfo(dev, p, &prof) != NVML_SUCCESS
        || prof.instanceCount == 0 || prof.instanceCount > MIG_MAX_INSTANCES) {
      continue;
    }
    nvmlReturn_t rc = nvml.deviceGetGpuInstances(dev, prof.id, gis, &count);
    if (!check(env, rc, "nvmlDeviceGetGpuInstances")) {
      return NULL;
    }
    for (unsigned int i = 0; i < count && i < MIG_MAX_INSTANCES; i++) {
      nvmlGpuInstanceInfo_t info;
      memset(&info, 0, sizeof(info));
      if (n + 5 > (jsize) (sizeof(flat) / sizeof(flat[0]))
          || nvml.gpuInstanceGetInfo(gis[i], &info) != NVML_SUCCESS) {
        continue;
      }
      flat[n++] = (jint) info.id;
      flat[n++] = (jint) info.profileId;
      flat[n++] = (jint) info.placement.start;
      flat[n++] = (jint) info.placement.size;
      flat[n++] = (jint) migDeviceOf(dev, info.id, -1, NULL, 0);
    }
  }
  return intArray(env, flat, n);
}

static jstring JNICALL nativeMigUuid(JNIEnv *env, jclass clazz, jlong handle, jint gi, jint ci) {
  (void) clazz;
  char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  if (!migBound(env, (const void *) nvml.deviceGetMigDeviceHandleByIndex,
                "nvmlDeviceGetMigDeviceHandleByIndex")) {
    return NULL;
  }
  memset(buf, 0, sizeof(buf));
  if (migDeviceOf((nvmlDevice_t) (intptr_t) handle, (unsigned int) gi, ci, buf, sizeof(buf)) < 0) {
    return NULL;
  }
  buf[sizeof(buf) - 1] = '\0';
  return (*env)->NewStringUTF(env, buf);
}

static void JNICALL nativeMigDestroy(JNIEnv *env, jclass clazz, jlong handle, jint giId,
                                     jint ciId) {
  (void) clazz;
  nvmlGpuInstance_t gi = NULL;
  nvmlComputeInstance_t ci = NULL;
  if (!migBound(env, (const void *) nvml.deviceGetGpuInstanceById, "nvmlDeviceGetGpuInstanceById")
      || !migBound(env, (const void *) nvml.gpuInstanceGetComputeInstanceById,
                   "nvmlGpuInstanceGetComputeInstanceById")
      || !migBound(env, (const void *) nvml.computeInstanceDestroy, "nvmlComputeInstanceDestroy")
      || !migBound(env, (const void *) nvml.gpuInstanceDestroy, "nvmlGpuInstanceDestroy")) {
    return;
  }
  if (!check(env,
             nvml.deviceGetGpuInstanceById((nvmlDevice_t) (intptr_t) handle,
                                           (unsigned int) giId, &gi),
             "nvmlDeviceGetGpuInstanceById")) {
    return;
  }
  if (ciId >= 0) {
    nvmlReturn_t rc = nvml.gpuInstanceGetComputeInstanceById(gi, (unsigned int) ciId, &ci);
    if (rc != NVML_ERROR_NOT_FOUND) {
      if (!check(env, rc, "nvmlGpuInstanceGetComputeInstanceById")
          || !check(env, nvml.computeInstanceDestroy(ci), "nvmlComputeInstanceDestroy")) {
        return;
      }
    }
  }
  check(env, nvml.gpuInstanceDestroy(gi), "nvmlGpuInstanceDestroy");
}

/* Samples newer than sinceMicros as {pid, timestamp, sm %, mem %} per sample; empty when none. */
static jlongArray JNICALL nativeProcessUtilization(JNIEnv *env, jclass clazz, jlong handle,
                                                   jlong sinceMicros) {
  (void) clazz;
  nvmlDevice_t dev = (nvmlDevice_t) (intptr_t) handle;
  nvmlProcessUtilizationSample_t *samples = NULL;
  jlong *flat = NULL;
  jlongArray out = NULL;
  unsigned int count = 0;
  if (!loaded(env, "nvmlDeviceGetProcessUtilization")) {
    return NULL;
  }
  if (nvml.deviceGetProcessUtilization == NULL) {
    throwNvml(env, NVML_ERROR_FUNCTION_NOT_FOUND, "nvmlDeviceGetProcessUtilization");
    return NULL;
  }
  /* The first call sizes the buffer; processes may start between the calls, so retry a few. */
  for (int attempt = 0; attempt < 4; attempt++) {
    nvmlReturn_t rc =
        nvml.deviceGetProcessUtilization(dev, samples, &count, (unsigned long long) sinceMicros);
    if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && samples == NULL)
        || (rc == NVML_ERROR_INSUFFICIENT_SIZE && count == 0)) {
      count = 0;
      break;
    }
    if (rc == NVML_SUCCESS) {
      break;
    }
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE || attempt == 3) {
      check(env, rc, "nvmlDeviceGetProcessUtilization");
      goto error;
    }
    count += 8;
    free(samples);
    samples = calloc(count, sizeof(*samples));
    if (samples == NULL) {
      throwNvml(env, SHIM_JAVA_ERROR, "nvmlDeviceGetProcessUtilization: out of memory");
      goto error;
    }
  }
  out = (*env)->NewLongArray(env, (jsize) (count * 4));
  if (out == NULL || count == 0) {
    goto error;
  }
  flat = calloc((size_t) count * 4, sizeof(jlong));
  if (flat == NULL) {
    out = NULL;
    throwNvml(env, SHIM_JAVA_ERROR, "nvmlDeviceGetProcessUtilization: out of memory");
    goto error;
  }
  for (unsigned int i = 0; i < count; i++) {
    flat[i * 4] = (jlong) samples[i].pid;
    flat[i * 4 + 1] = (jlong) samples[i].timeStamp;
    flat[i * 4 + 2] = (jlong) samples[i].smUtil;
    flat[i * 4 + 3] = (jlong) samples[i].memUtil;
  }
  (*env)->SetLongArrayRegion(env, out, 0, (jsize) (count * 4), flat);

error:
  free(flat);
  free(samples);
  return out;
}

static const JNINativeMethod methods[] = {
    {"load", "(Ljava/lang/String;)Ljava/lang/String;", (void *) nativeLoad},
    {"init", "()V", (void *) nativeInit},
    {"shutdown", "()V", (void *) nativeShutdown},
    {"driverVersion", "()Ljava/lang/String;", (void *) nativeDriverVersion},
    {"deviceCount", "()I", (void *) nativeDeviceCount},
    {"handle", "(I)J", (void *) nativeHandle},
    {"uuid", "(J)Ljava/lang/String;", (void *) nativeUuid},
    {"name", "(J)Ljava/lang/String;", (void *) nativeName},
    {"memoryTotal", "(J)J", (void *) nativeMemoryTotal},
    {"pciBusId", "(J)Ljava/lang/String;", (void *) nativePciBusId},
    {"migEnabled", "(J)I", (void *) nativeMigEnabled},
    {"commonAncestor", "(JJ)I", (void *) nativeCommonAncestor},
    {"nvLinksTo", "(JLjava/lang/String;)I", (void *) nativeNvLinksTo},
    {"eventSetCreate", "()J", (void *) nativeEventSetCreate},
    {"registerXid", "(JJ)Z", (void *) nativeRegisterXid},
    {"eventWait", "(JI)[J", (void *) nativeEventWait},
    {"eventSetFree", "(J)V", (void *) nativeEventSetFree},
    {"migProfile", "(JI)[J", (void *) nativeMigProfile},
    {"migPlacements", "(JI)[I", (void *) nativeMigPlacements},
    {"migCreate", "(JIII)[I", (void *) nativeMigCreate},
    {"migInstances", "(J)[I", (void *) nativeMigInstances},
    {"migUuid", "(JII)Ljava/lang/String;", (void *) nativeMigUuid},
    {"migDestroy", "(JII)V", (void *) nativeMigDestroy},
    {"processUtilization", "(JJ)[J", (void *) nativeProcessUtilization},
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void) reserved;
  JNIEnv *env = NULL;
  jclass natives = NULL;
  jclass ex = NULL;
  if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
    return JNI_ERR;
  }
  natives = (*env)->FindClass(env, "io/hami/nodeagent/nvml/NvmlNatives");
  if (natives == NULL) {
    goto error;
  }
  if ((*env)->RegisterNatives(env, natives, methods,
                              (jint) (sizeof(methods) / sizeof(methods[0]))) != 0) {
    goto error;
  }
  ex = (*env)->FindClass(env, "io/hami/nodeagent/nvml/NvmlException");
  if (ex == NULL) {
    goto error;
  }
  exceptionInit = (*env)->GetMethodID(env, ex, "<init>", "(ILjava/lang/String;)V");
  if (exceptionInit == NULL) {
    goto error;
  }
  exceptionClass = (jclass) (*env)->NewGlobalRef(env, ex);
  if (exceptionClass == NULL) {
    goto error;
  }
  (*env)->DeleteLocalRef(env, ex);
  (*env)->DeleteLocalRef(env, natives);
  return JNI_VERSION_1_8;

error:
  if (ex != NULL) {
    (*env)->DeleteLocalRef(env, ex);
  }
  if (natives != NULL) {
    (*env)->DeleteLocalRef(env, natives);
  }
  return JNI_ERR;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
  (void) reserved;
  JNIEnv *env = NULL;
  if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) == JNI_OK && exceptionClass != NULL) {
    (*env)->DeleteGlobalRef(env, exceptionClass);
    exceptionClass = NULL;
  }
  if (nvml.lib != NULL) {
    dlclose(nvml.lib);
    memset(&nvml, 0, sizeof(nvml));
  }
}
