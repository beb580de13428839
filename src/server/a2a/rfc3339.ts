/** RFC 3339 `date-time` (section 5.6): `2026-01-02T03:04:05Z`, `2026-01-02t03:04:05.5+01:00`. */
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Whether `text` is an RFC 3339 date-time that names a real instant. Stricter than `Date.parse`,
 * which takes `-1` (a year) or `2026-02-30` (March 2nd).
 */
export function isRfc3339DateTime(text: string): boolean {
  const match = dateTime.exec(text);
  if (!match) return false;
  // A `Z` time has no offset groups: they count as 0.
  const part = (group: number) => Number(match[group] ?? 0);
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  const [offsetHour, offsetMinute] = [part(8), part(9)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    // 60 is a leap second.
    second <= 60 &&
    offsetHour <= 23 &&
    offsetMinute <= 59
  );
}
