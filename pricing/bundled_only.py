"""Why a provider's prices come from the bundled snapshot alone: no live adapter reads them.

A provider gets a live adapter where its price list is public without an account (Voltage
Park, Oracle, Verda, Hyperbolic) or behind a key a team can set (Lambda, RunPod, Vast.ai).
The others are listed here with the reason, which ``/providers`` gives on the provider's
line, so a reader knows whether its prices can ever refresh themselves or wait for the next
bundle.
What each reason says of a page or an API was read from the source it names.
"""

from __future__ import annotations

# A web page and sales: nothing an adapter can read without scraping HTML.
PAGE_ONLY = "its prices are a web page, with no public price list or API an adapter can read"

BUNDLED_ONLY = {
    "together": f"{PAGE_ONLY} (together.ai/pricing); reservations past 180 days are by sales "
    "contact",
    "civo": f"{PAGE_ONLY} (civo.com/pricing)",
    "gcore": "its pricing API needs an account's API key (api.gcore.com/cloud/v2/pricing, "
    "Authorization: apikey); its public prices are a web page (gcore.com/pricing/ai)",
    "jarvislabs": f"{PAGE_ONLY} (jarvislabs.ai/pricing)",
    "digitalocean": "its API (api.digitalocean.com/v2/sizes) needs an account's token; its GPU "
    "Droplet prices are a web page",
    "paperspace": f"{PAGE_ONLY} (paperspace.com/pricing)",
    "cirrascale": "it sells 8-GPU servers by the month through its page and sales; no public "
    "price list",
    "coreweave": f"{PAGE_ONLY} (coreweave.com/pricing); committed prices by sales contact "
    "('up to 60 %' off)",
    "nebius": f"{PAGE_ONLY} (nebius.com/prices); committed prices by sales contact "
    "('up to 35 %' off)",
    "hyperstack": f"{PAGE_ONLY} (hyperstack.cloud/gpu-pricing); reserved prices state no term",
    "massedcompute": f"{PAGE_ONLY} (vm.massedcompute.com/pricing)",
    "crusoe": f"{PAGE_ONLY} (crusoe.ai/cloud/pricing); committed prices by sales contact",
    "ovhcloud": "a public catalogue API exists (api.ovh.com/1.0/order/catalog/public/cloud) "
    "but no sample of its answer is stored to build a fake from; the bundled prices are a "
    "third party's copy of its catalogue, in euros, VAT excluded",
    "autodl": f"{PAGE_ONLY} (autodl.com, in yuan, for accounts in mainland China)",
    "alibaba": "its price API (DescribePrice) needs an account's access key; the bundled list "
    "is its China site's, in yuan",
    "tencent": "its price API (InquiryPrice) needs an account's credentials; the bundled prices "
    "are Cloud Studio's page, in yuan",
}
