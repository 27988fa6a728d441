// http_ece (installed with web-push) has no types; the push test decrypts a payload with it, as a browser would.
declare module 'http_ece' {
  const ece: { decrypt(buffer: Buffer, params: Record<string, unknown>): Buffer };
  export default ece;
}
