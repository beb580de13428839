import { describe, expect, it } from 'vitest';
import { isRfc3339DateTime } from './rfc3339.js';

describe('isRfc3339DateTime', () => {
  it('takes the date-times RFC 3339 allows', () => {
    for (const text of [
      '2026-01-02T03:04:05Z',
      '2026-01-02t03:04:05z',
      '2026-01-02T03:04:05.123456Z',
      '2026-01-02T03:04:05+01:00',
      '2026-01-02T03:04:05.5-23:59',
      '2024-02-29T00:00:00Z',
      '2016-12-31T23:59:60Z',
    ])
      expect({ text, valid: isRfc3339DateTime(text) }).toEqual({ text, valid: true });
  });

  it('refuses what Date.parse would take, and impossible dates', () => {
    for (const text of [
      '-1',
      '12',
      '2026',
      '2026-01-02',
      '2026-01-02 03:04:05Z',
      '2026-01-02T03:04:05',
      '2026-01-02T03:04Z',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-02T24:00:00Z',
      '2026-01-02T03:60:00Z',
      '2026-01-02T03:04:05+24:00',
      'Tue, 01 Dec 2026 07:00:00 GMT',
    ])
      expect({ text, valid: isRfc3339DateTime(text) }).toEqual({ text, valid: false });
  });
});
