/**
 * The banner over the studio before its session expires (with `session.expiring` to the parent):
 * how long is left, and what happens to work still running then (docs/embed.md, "Recordings").
 */
export function expiryWarningText(secondsLeft: number): string {
  return `This session ends in ${timeLeftText(secondsLeft)}. A take still recording then is finished and handed to the page; a render still running is stopped.`;
}

/** How long is left, as the banner and the live region both say it. */
export function timeLeftText(secondsLeft: number): string {
  if (secondsLeft >= 90) return `about ${Math.round(secondsLeft / 60)} minutes`;
  if (secondsLeft >= 60) return 'about a minute';
  return `${Math.max(0, Math.round(secondsLeft))} seconds`;
}
