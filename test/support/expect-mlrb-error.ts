/** The MlrbError a call throws (or a promise rejects with), asserted to be one; anything else fails the test. */
import { expect } from 'vitest';
import { MlrbError, type ErrorCode } from '../../src/errors.js';

export function thrownMlrbError(run: () => unknown): MlrbError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MlrbError);
    return error as MlrbError;
  }
  throw new Error('expected an MlrbError');
}

export async function rejectedMlrbError(run: () => Promise<unknown>, what = 'the call'): Promise<MlrbError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(MlrbError);
    return error as MlrbError;
  }
  throw new Error(`${what} succeeded`);
}

/** The MlrbError `load` rejects with, asserted to carry `code`. */
export async function refusedWith(code: ErrorCode, load: Promise<unknown>): Promise<MlrbError> {
  const error = await rejectedMlrbError(() => load, 'the load');
  expect(error.code).toBe(code);
  return error;
}
