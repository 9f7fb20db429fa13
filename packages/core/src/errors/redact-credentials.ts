const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)([^/@\s:]*):([^/@\s]*)@/gi;
const PASSWORD_PARAMETER = /((?:password|passwd|pwd)=)[^&\s]*/gi;

/** `text` with passwords in URLs and `password=` parameters masked, for messages and logs. */
export function redactCredentials(text: string): string {
  return text.replace(URL_USERINFO, "$1$2:***@").replace(PASSWORD_PARAMETER, "$1***");
}
