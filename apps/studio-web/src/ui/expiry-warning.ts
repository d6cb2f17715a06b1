/**
 * The banner over the studio before its session expires (with `session.expiring` to the parent):
 * how long is left, and what happens to work still running then (docs/embed.md, "Recordings").
 */
export function expiryWarningText(secondsLeft: number): string {
  const left =
    secondsLeft >= 90
      ? `about ${Math.round(secondsLeft / 60)} minutes`
      : secondsLeft >= 60
        ? 'about a minute'
        : `${Math.max(0, Math.round(secondsLeft))} seconds`;
  return `This session ends in ${left}. A take still recording then is finished and handed to the page; a render still running is stopped.`;
}
