/*
 * Stand-in for Windows' bcryptprimitives.dll, which Wine 8 (Debian 12) lacks: Bun's Windows runtime imports
 * ProcessPrng from it and cannot start without it. This one forwards to advapi32's RtlGenRandom
 * (SystemFunction036), which Wine has. Test lane only (scripts/platform/setup-wine.sh builds it); never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
