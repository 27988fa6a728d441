import { describe, expect, it } from 'vitest';
import { addressProblem, checkOutboundUrl, ipv6Words, OutboundRefused } from './outbound-url.ts';

const policy = { allowPrivate: false, resolve: async () => [{ address: '93.184.216.34', family: 4 }] };

describe('outbound URL guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fd00::1',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '64:ff9b:1::808:808',
    '64:ff9b:1:ffff::1',
  ])('refuses %s', (address) => {
    expect(addressProblem(address)).toBeDefined();
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '64:ff9b::808:808'])('allows %s', (address) => {
    expect(addressProblem(address)).toBeUndefined();
  });

  it('expands IPv6 forms', () => {
    expect(ipv6Words('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(ipv6Words('fe80::1')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  });

  it.each([
    ['http://2130706433/', 'decimal'],
    ['http://0177.0.0.1/', 'octal'],
    ['http://0x7f000001/', 'hex'],
    ['http://0x7f.1/', 'short hex'],
    ['http://127.1/', 'short'],
    ['http://[::ffff:7f00:1]/', 'mapped'],
    ['http://[::ffff:169.254.169.254]/', 'mapped metadata'],
    ['http://0/', 'zero'],
  ])('refuses %s (%s notation)', async (url) => {
    await expect(checkOutboundUrl(url, policy)).rejects.toBeInstanceOf(OutboundRefused);
  });

  it('checks every resolved address, refuses schemes and credentials, and honours the allowance', async () => {
    const rebinding = {
      allowPrivate: false,
      resolve: async () => [
        { address: '8.8.8.8', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
    };
    await expect(checkOutboundUrl('https://hooks.example.com/x', rebinding)).rejects.toThrow(/10\.0\.0\.5/);
    await expect(checkOutboundUrl('https://hooks.example.com/x', policy)).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('ftp://hooks.example.com/', policy)).rejects.toThrow(/http or https/);
    await expect(checkOutboundUrl('file:///etc/passwd', policy)).rejects.toThrow(/http or https/);
    await expect(checkOutboundUrl('https://user:pw@hooks.example.com/', policy)).rejects.toThrow(
      /credentials/,
    );
    await expect(checkOutboundUrl('http://127.0.0.1/', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
  });

  it('allows ports 80 and 443, and others only when listed', async () => {
    await expect(checkOutboundUrl('http://hooks.example.com:443/x', policy)).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('https://hooks.example.com:80/x', policy)).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('https://hooks.example.com:8443/x', policy)).rejects.toThrow(
      /port 8443 is not allowed/,
    );
    await expect(checkOutboundUrl('http://127.0.0.1:9/', { allowPrivate: true })).rejects.toThrow(
      /port 9 is not allowed/,
    );
    await expect(
      checkOutboundUrl('http://127.0.0.1:9/', { allowPrivate: true, allowedPorts: [9] }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      checkOutboundUrl('https://hooks.example.com:8443/x', { ...policy, allowedPorts: [8443] }),
    ).resolves.toBeInstanceOf(URL);
  });
});
