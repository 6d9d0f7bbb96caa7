"""Cloud-ops subjects no tool answers, read from a question (zh and en).

Running the cloud rather than choosing its GPUs: an account's quota, a spot interruption rate, the drivers of an
image, setting up Kubernetes or eRDMA, disks, monitoring, SLAs, promotions, commitment discounts, provisioning
time, launch plans, writing scripts, acting on the account, power and carbon. Neither the catalog nor the price
table holds any of these, so the answer says so on its first line; the guidance may still say something about the
subject, and a passage is quoted only when it has the subject's own words (the quota centre for a quota question,
never the nearest price table).
"""

from __future__ import annotations

import re

from assistant.reading import compiled

# A commitment and a word asking what it saves: "a 3-year reservation's discount", "签三年合约能便宜多少".
_COMMITMENT = (
    r"(?:\d|one|two|three|five)[\s\-]*years?\s+(?:reserv\w*|commit\w*|contracts?|terms?|deals?)|"
    r"reserved\s+(?:instances?|capacity|commitments?)|savings\s+plans?|committed[\s\-]use|预留实例|节省计划|"
    r"(?:一|二|两|三|五|\d)\s*年\s*(?:的)?(?:包年|合约|预留|承诺|合同|长约)"
)
_DISCOUNT = r"discount\w*|cheaper|how\s+much|\brates?\b|pric\w+|折扣|便宜|多少|几折|优惠"
# Each subject: its name, the question's words for it, and the words a passage must have to be quoted beside it.
OPS_SUBJECTS: tuple[tuple[str, str, str], ...] = (
    ("quota", r"\bquotas?\b|配额", r"quota|配额"),
    ("spot_rate",
     r"(?:spot|preemptible|抢占式?|竞价)[\s\S]{0,60}?(?:interrupt\w*|reclaim\w*|回收|中断|释放)[\s\S]{0,30}?"
     r"(?:rates?\b|probabilit\w*|how\s+often|frequen\w*|how\s+likely|chances?\b|odds|"
     r"概率|几率|频率|多高|多大|多频繁|多久一次)|"
     r"(?:interruption|reclaim\w*|eviction)\s+(?:rates?|probabilit\w*|frequency)|(?:回收|中断)(?:的)?(?:概率|几率|频率)",
     r"preempt|spot|抢占"),
    ("driver",
     r"which\s+(?:nvidia\s+|gpu\s+)?driver|drivers?\s+(?:versions?|comes?|ships?|is\s+(?:pre[\s\-]?)?installed)|"
     r"(?:pre[\s\-]?installed|public\s+images?)[\s\S]{0,40}?(?:driver|cuda)|"
     r"(?:driver|cuda)[\s\S]{0,40}?(?:pre[\s\-]?installed|public\s+images?)|(?:驱动|cuda)\s*(?:的)?(?:版本|是哪)|"
     r"(?:预装|公共镜像|镜像里)[\s\S]{0,20}?(?:驱动|cuda)|(?:驱动|cuda)[\s\S]{0,20}?(?:预装|公共镜像)",
     r"driver|驱动"),
    ("kubernetes",
     r"(?:set\s*up|setting\s+up|configur\w*|walk\s+(?:me|us)\s+through|steps?\s+to|"
     r"how\s+(?:do|can|should)\s+(?:i|we)\s+(?:create|build|install))[\s\S]{0,40}?(?:kubernetes|k8s|\back\b)|"
     r"(?:kubernetes|k8s|\back\b)[\s\S]{0,30}?(?:manifests?|helm\s+charts?)|"
     r"(?:搭建|配置|创建)[\s\S]{0,10}?(?:k8s|kubernetes|ack\s*集群|容器服务)|"
     # "在 ACK 上用 Volcano 调度训练，节点池怎么配": the cluster named first, how to set it up after
     r"(?:k8s|kubernetes|\back\b|容器服务)[\s\S]{0,40}?(?:怎么|如何|要怎么)\s*(?:配置?|搭建|设置)",
     r"\back\b|kubernetes|容器服务"),
    ("local_disk",
     r"local\s+(?:nvme|ssds?|disks?)|\bnvme\b|本地(?:盘|磁盘|ssd|nvme)|系统盘|数据盘|硬盘\S{0,4}?(?:多大|容量|大小|空间|扩容)|(?:system|data|boot)\s+disks?|"
     r"disk\s+(?:size|capacity)|how\s+(?:big|large)\s+(?:is\s+|are\s+)?the\s+disks?",
     r"disk|essd|nvme|云盘|本地盘|磁盘"),
    ("monitoring",
     r"(?:monitor\w*|watch\w*|track\w*|dashboards?|监控)[\s\S]{0,30}?(?:gpu|显卡)\s*(?:utili[sz]ation|usage|load|"
     r"利用率|使用率|占用)|nvidia-smi|\bdcgm\b|cloud\s*monitor|云监控|(?:gpu|显卡)\s*(?:利用率|使用率)\s*(?:怎么|如何)\s*(?:看|查|监控)",
     r"monitor|监控|dcgm|utili[sz]ation|利用率"),
    ("rdma_setup",
     r"(?:配置|开通|启用|设置|搭建|set\s*up|setting\s+up|configur\w*|enabl\w*|install\w*)\s*(?:an?\s+|the\s+)?e?rdma|"
     r"e?rdma\s*(?:网络|网卡)?\s*(?:怎么|如何|要)\s*(?:配置?|开通|启用|设置|装)|e?rdma[\s\S]{0,20}?(?:驱动|drivers?)",
     r"rdma"),
    ("commitment",  # the discount of a commitment, not which kind to choose (the guidance compares those)
     rf"(?:{_COMMITMENT})[\s\S]{{0,60}}?(?:{_DISCOUNT})|(?:{_DISCOUNT})[\s\S]{{0,60}}?(?:{_COMMITMENT})",
     r"savings[\s\-]plan|reserved\s+instance|节省计划|预留实例"),
    ("provisioning",
     r"how\s+long\s+(?:does\s+it\s+|will\s+it\s+|would\s+it\s+)?take\s+to\s+(?:provision|launch|create|spin\s+up|boot)\b|"
     r"provision(?:ing)?\s+times?|boot\s+times?|(?:开通|创建|开机)[^，,。？?]{0,16}?(?:要|需要|得)\s*多久",
     r"provision|开通时间"),
    ("roadmap",
     r"(?:什么时候|何时|啥时候)\s*(?:阿里云)?\s*(?:会|能|才|将)?\s*(?:上线|上架|上(?![线架])|推出|发布|开售)(?![的了过])|"
     r"when\s+will\s+(?:alibaba(?:\s+cloud)?|aliyun|you|they)\s+(?:launch|release|offer|add|get|start\s+selling)|"
     r"\broadmap\b|路线图|(?:未来|以后|将来)会不会(?:上|推出|出)",
     r"roadmap|路线图"),
    ("code",
     r"(?:(?:帮|给|替)我|请|麻烦你?|能不能|可以|^)\s*(?:写|编写|生成|出)\s*(?:一段|一个|一份|个|份)?[^，,。？?！!]{0,16}?"
     r"(?:脚本|代码|启动命令|配置文件|yaml|dockerfile)|"
     r"\b(?:write|generate|give)\s+(?:me\s+)?(?:an?\s+|the\s+)?(?:exact\s+|full\s+)?(?:[\w.]+[\s\-]){0,3}?"
     r"(?:script|code|(?:vllm\s+serve|docker\s+run|launch|startup|start)\s+command|dockerfile|docker-compose|"
     r"compose\s+file|yaml|manifest|helm\s+chart)s?\b",
     r"vllm\s+serve|--max-model-len|--tensor-parallel|gpu[_\-]memory[_\-]utilization"),
    ("action",
     r"(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:open|file|submit|create|buy|purchase|order|book|reserve|launch|"
     r"start|stop|restart|reboot|delete|release)\s+(?:an?\s+|the\s+|my\s+|this\s+|one\s+)?(?:[\w.\-]+\s+){0,2}?"
     r"(?:tickets?|instances?|servers?|machines?|nodes?|gpus?|box(?:es)?|clusters?|for\s+(?:me|us))|"
     r"(?:帮|替|给)我\s*(?:直接|去|马上|立刻|现在)?\s*(?:买|购买|下单|开通|创建|启动|重启|释放|提交?工单|抢)",
     r"console|控制台|ticket|工单"),
    ("energy",
     r"carbon|\bco2\b|emissions?|碳排放|碳足迹|electricity|power\s+(?:bills?|costs?)|"  # a GPU's TDP is in its specs
     r"energy\s+(?:costs?|consumption)|电费|耗电量|\bkwh\b|千瓦时|度电",
     r"power|energy|功耗|能耗|电费"),
    ("sla", r"\bsla\b|\buptime\b|availability\s+guarantee|服务等级协议|可用性(?:承诺|保证)|(?:承诺|保证)\S{0,6}可用性",
     r"\bsla\b|uptime|服务等级|可用性承诺"),
    ("credits",
     r"free\s+(?:gpu\s+)?(?:trials?|tier|credits?)|(?:student|startup|education\w*)\s+(?:credits?|discounts?|"
     r"programs?|offers?|coupons?)|discounts?\s+for\s+(?:students?|startups?)|coupons?|vouchers?|"
     r"promo(?:tion(?:al)?)?\s+codes?|免费(?:试用|额度|体验)|学生(?:优惠|认证|套餐|机|折扣)|(?:代金|优惠)券|"
     r"(?:创业|初创)\S{0,4}(?:扶持|优惠|补贴|计划)",
     r"free\s+trial|免费试用|student|学生|coupon|voucher|代金券|优惠券"),
)
OPS_WORDS = "|".join(pattern for _, pattern, _ in OPS_SUBJECTS)


def ops_subject(text: str) -> str | None:
    """Name the cloud-ops subject of OPS_SUBJECTS the question is on ("quota"), or None."""
    return next((subject for subject, pattern, _ in OPS_SUBJECTS if compiled(pattern).search(text)), None)


def about_subject(subject: str, text: str) -> bool:
    """Tell whether a passage's text is about a cloud-ops subject (the quota centre for "quota")."""
    return subject_hits(subject, text) > 0


def subject_hits(subject: str, text: str) -> int:
    """Count the words of a cloud-ops subject in a passage's text."""
    return sum(len(re.findall(words, text, re.IGNORECASE)) for s, _, words in OPS_SUBJECTS if s == subject)
