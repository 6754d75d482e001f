/* The FMI 2.0 types and Co-Simulation functions an exported mbdrom model implements,
   declared as the FMI 2.0.x standard (Functional Mock-up Interface for Model Exchange
   and Co-Simulation, Modelica Association) defines them in fmi2TypesPlatform.h,
   fmi2FunctionTypes.h and fmi2Functions.h: the same names, types and argument lists. */
#ifndef MBDROM_FMI2_H
#define MBDROM_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define fmi2TypesPlatform "default"
#define fmi2Version "2.0"

typedef void* fmi2Component;
typedef void* fmi2ComponentEnvironment;
typedef void* fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char* fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum { fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated } fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String,
                                   ...);
typedef void* (*fmi2CallbackAllocateMemory)(size_t, size_t);
typedef void (*fmi2CallbackFreeMemory)(void*);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);

typedef struct {
  const fmi2CallbackLogger logger;
  const fmi2CallbackAllocateMemory allocateMemory;
  const fmi2CallbackFreeMemory freeMemory;
  const fmi2StepFinished stepFinished;
  const fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#if defined(_WIN32)
#define MBDROM_FMI2_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define MBDROM_FMI2_EXPORT __attribute__((visibility("default")))
#else
#define MBDROM_FMI2_EXPORT
#endif

/* A source FMU linked statically into a program with others (FMI 2.0, section
   2.1.1): compiled with -DFMI2_FUNCTION_PREFIX=<modelIdentifier>_ its functions
   are named e.g. <modelIdentifier>_fmi2DoStep, so the FMUs' names do not clash.
   Without it (a shared library, as in binaries/) they keep their plain names. */
#if defined(FMI2_FUNCTION_PREFIX)
#define fmi2Paste(a, b) a##b
#define fmi2PasteB(a, b) fmi2Paste(a, b)
#define fmi2FullName(name) fmi2PasteB(FMI2_FUNCTION_PREFIX, name)
#else
#define fmi2FullName(name) name
#endif
#define fmi2GetTypesPlatform fmi2FullName(fmi2GetTypesPlatform)
#define fmi2GetVersion fmi2FullName(fmi2GetVersion)
#define fmi2SetDebugLogging fmi2FullName(fmi2SetDebugLogging)
#define fmi2Instantiate fmi2FullName(fmi2Instantiate)
#define fmi2FreeInstance fmi2FullName(fmi2FreeInstance)
#define fmi2SetupExperiment fmi2FullName(fmi2SetupExperiment)
#define fmi2EnterInitializationMode fmi2FullName(fmi2EnterInitializationMode)
#define fmi2ExitInitializationMode fmi2FullName(fmi2ExitInitializationMode)
#define fmi2Terminate fmi2FullName(fmi2Terminate)
#define fmi2Reset fmi2FullName(fmi2Reset)
#define fmi2GetReal fmi2FullName(fmi2GetReal)
#define fmi2GetInteger fmi2FullName(fmi2GetInteger)
#define fmi2GetBoolean fmi2FullName(fmi2GetBoolean)
#define fmi2GetString fmi2FullName(fmi2GetString)
#define fmi2SetReal fmi2FullName(fmi2SetReal)
#define fmi2SetInteger fmi2FullName(fmi2SetInteger)
#define fmi2SetBoolean fmi2FullName(fmi2SetBoolean)
#define fmi2SetString fmi2FullName(fmi2SetString)
#define fmi2GetFMUstate fmi2FullName(fmi2GetFMUstate)
#define fmi2SetFMUstate fmi2FullName(fmi2SetFMUstate)
#define fmi2FreeFMUstate fmi2FullName(fmi2FreeFMUstate)
#define fmi2SerializedFMUstateSize fmi2FullName(fmi2SerializedFMUstateSize)
#define fmi2SerializeFMUstate fmi2FullName(fmi2SerializeFMUstate)
#define fmi2DeSerializeFMUstate fmi2FullName(fmi2DeSerializeFMUstate)
#define fmi2GetDirectionalDerivative fmi2FullName(fmi2GetDirectionalDerivative)
#define fmi2SetRealInputDerivatives fmi2FullName(fmi2SetRealInputDerivatives)
#define fmi2GetRealOutputDerivatives fmi2FullName(fmi2GetRealOutputDerivatives)
#define fmi2DoStep fmi2FullName(fmi2DoStep)
#define fmi2CancelStep fmi2FullName(fmi2CancelStep)
#define fmi2GetStatus fmi2FullName(fmi2GetStatus)
#define fmi2GetRealStatus fmi2FullName(fmi2GetRealStatus)
#define fmi2GetIntegerStatus fmi2FullName(fmi2GetIntegerStatus)
#define fmi2GetBooleanStatus fmi2FullName(fmi2GetBooleanStatus)
#define fmi2GetStringStatus fmi2FullName(fmi2GetStringStatus)

MBDROM_FMI2_EXPORT const char* fmi2GetTypesPlatform(void);
MBDROM_FMI2_EXPORT const char* fmi2GetVersion(void);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                                  const fmi2String categories[]);
MBDROM_FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                                 fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                                 const fmi2CallbackFunctions* functions, fmi2Boolean visible,
                                                 fmi2Boolean loggingOn);
MBDROM_FMI2_EXPORT void fmi2FreeInstance(fmi2Component c);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                                                  fmi2Real tolerance, fmi2Real startTime,
                                                  fmi2Boolean stopTimeDefined, fmi2Real stopTime);
MBDROM_FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c);
MBDROM_FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c);
MBDROM_FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c);
MBDROM_FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component c);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                          fmi2Real value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                             fmi2Integer value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                             fmi2Boolean value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                            fmi2String value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                          const fmi2Real value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                             const fmi2Integer value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                             const fmi2Boolean value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                            const fmi2String value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* FMUstate);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate);
MBDROM_FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* FMUstate);
MBDROM_FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate,
                                                         size_t* size);
MBDROM_FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                                    fmi2Byte serializedState[], size_t size);
MBDROM_FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                                      size_t size, fmi2FMUstate* FMUstate);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(
    fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
    const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                                          size_t nvr, const fmi2Integer order[],
                                                          const fmi2Real value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                                           size_t nvr, const fmi2Integer order[],
                                                           fmi2Real value[]);
MBDROM_FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                         fmi2Real communicationStepSize,
                                         fmi2Boolean noSetFMUStatePriorToCurrentPoint);
MBDROM_FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component c);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status* value);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s,
                                                   fmi2Integer* value);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s,
                                                   fmi2Boolean* value);
MBDROM_FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String* value);

#ifdef __cplusplus
}
#endif

#endif
