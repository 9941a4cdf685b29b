/**
 * The calibration in use: calibration.json, derived from raw-measures.csv by `npm run calibrate`
 * (derive.ts). Its version names the file's SHA-256, so a stored score says which calibration made it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Measure } from '../../shared/measures.ts';
import { fileVersion } from '../model-version.ts';
import type { MeasureCalibration } from './derive.ts';

export const CALIBRATION_PATH = fileURLToPath(new URL('calibration.json', import.meta.url));
export const TABLE_PATH = fileURLToPath(new URL('raw-measures.csv', import.meta.url));

export const CALIBRATION = JSON.parse(readFileSync(CALIBRATION_PATH, 'utf8')) as Readonly<
  Record<Measure, MeasureCalibration>
>;
export const CALIBRATION_VERSION = fileVersion(CALIBRATION_PATH, 'calibration-2');
